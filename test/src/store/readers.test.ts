// A store says how many of its connections are in use and how many queries wait for one (what
// /metrics shows): SQLite's whole-list readers, PostgreSQL's pool, nothing for `:memory:`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openStore } from '../../../src/store/index.js'
import { setUpDemo } from '../../../demo/catalogue.js'
import { freshSchema, needs } from '../../helpers/services.js'

t.test('a SQLite file: a reader is in use while a stream reads, and a stream waits for one when all are', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-readers-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const store = await openStore(join(dir, 'catalogue.sqlite'), { setUp: setUpDemo, maxReaders: 1 })
  t.teardown(store.close)
  t.strictSame(store.readers(), { inUse: 0, waiting: 0 })
  const query = store.db.selectFrom('books' as never).selectAll() as never
  const first = store.stream(query, 10)[Symbol.asyncIterator]()
  await first.next()
  t.strictSame(store.readers(), { inUse: 1, waiting: 0 }, 'one stream reading')
  const second = store.stream(query, 10)[Symbol.asyncIterator]()
  const waited = second.next()
  t.strictSame(store.readers(), { inUse: 1, waiting: 1 }, 'another waiting for it')
  await first.return?.()
  await waited
  await second.return?.()
  t.strictSame(store.readers(), { inUse: 0, waiting: 0 }, 'both done')
})

t.test('in memory: no readers of its own', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(store.close)
  t.strictSame(store.readers(), { inUse: 0, waiting: 0 })
})

t.test('PostgreSQL: the pool\'s connections checked out', async (t) => {
  if (!await needs(t, 'PostgreSQL')) return
  const schema = freshSchema()
  t.teardown(schema.drop)
  const store = await openStore(schema.url)
  t.teardown(store.close)
  t.strictSame(store.readers(), { inUse: 0, waiting: 0 })
  await store.db.connection().execute(async () => {
    t.strictSame(store.readers(), { inUse: 1, waiting: 0 }, 'one held')
  })
})
