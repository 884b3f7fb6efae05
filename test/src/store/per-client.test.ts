// One client holds at most so many of a store's readers at once: its next whole list waits for one
// of its own to end, a bounded time, then is refused (AG_TOO_MANY_STREAMS); another client's is read
// meanwhile. The same on every store: SQLite's readers, PostgreSQL's pool.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { PROBLEM_KINDS } from '../../../src/core/errors.js'
import { openStore, type Store, type StoreOptions } from '../../../src/store/index.js'
import { setUpDemo } from '../../../demo/catalogue.js'
import { DEFAULT_STREAMS_PER_CLIENT, perClient } from '../../../src/store/per-client.js'
import { freshSchema, needs } from '../../helpers/services.js'

/** A stream of the books, one row a batch, started (so its reader is held) and left open. */
async function started (store: Store, client?: string): Promise<AsyncIterator<unknown[]>> {
  const rows = store.stream(store.db.selectFrom('books').selectAll().orderBy('id'), 1, client)[Symbol.asyncIterator]()
  const first = await rows.next()
  if (first.done === true) throw new Error('the demo books are missing')
  return rows
}

/**
 * A client's share refused after a wait of `waitMs`, and a long wait granted when one of its own
 * ends. (On PostgreSQL the same bound is the pool's for opening a connection, which a busy machine
 * can take a second or two for: its tests keep the default.)
 */
async function shared (t: Test, open: (options: StoreOptions & { streamsPerClient: number }) => Promise<Store>, waitMs: number): Promise<void> {
  t.test('a client at its share waits a bounded time, then is refused, taking no reader; another client is read', async (t) => {
    const store = await open({ streamsPerClient: 2, acquireTimeoutMs: waitMs })
    t.teardown(store.close)
    const held = [await started(store, 'key:a'), await started(store, 'key:a')]
    t.equal(store.readers().inUse, 2, 'two readers held for one client')
    await t.rejects(started(store, 'key:a'), {
      code: 'AG_TOO_MANY_STREAMS',
      statusCode: 429,
      message: `This caller (its key, or its address where it sends none) is already streaming 2 whole lists, as many as one caller may at once, and none ended within ${waitMs} ms: read one to its end or close it, then retry.`
    }, 'its third is refused once the wait is over')
    t.strictSame(store.readers(), { inUse: 2, waiting: 0 }, 'the refused one took no reader, and its wait was not for one')
    const other = await started(store, 'address:127.0.0.2')
    const uncounted = await started(store)
    t.equal(store.readers().inUse, 4, 'another client is read, and a stream named for no client is not counted')
    for (const rows of [...held, other, uncounted]) await rows.return?.()
    t.strictSame(store.readers(), { inUse: 0, waiting: 0 }, 'every reader given back')
  })

  t.test('a client\'s next list waits for one of its own to end, then is read', async (t) => {
    const store = await open({ streamsPerClient: 2, acquireTimeoutMs: 60_000 })
    t.teardown(store.close)
    const held = [await started(store, 'key:a'), await started(store, 'key:a')]
    let read = false
    const third = started(store, 'key:a').then((rows) => {
      read = true
      return rows
    })
    // Its wait holds no reader: another client is read meanwhile.
    await (await started(store, 'key:b')).return?.()
    t.notOk(read, 'still waiting while both of its own stream')
    await held[0].return?.()
    const rows = await third
    t.pass('read once one of its own was closed')
    const ended = held[1]
    for (let next = await ended.next(); next.done !== true; next = await ended.next());
    const fourth = await started(store, 'key:a')
    t.pass('a list read to its end counts no more either')
    for (const open of [rows, fourth]) await open.return?.()
    t.strictSame(store.readers(), { inUse: 0, waiting: 0 })
  })
}

t.test('SQLite', async (t) => {
  const file = join(t.testdir(), 'catalogue.sqlite')
  await shared(t, async (options) => await openStore(file, { setUp: setUpDemo, ...options }), 50)
})

t.test('PostgreSQL', async (t) => {
  if (!await needs(t, 'PostgreSQL')) return
  const schema = freshSchema()
  t.teardown(schema.drop)
  await shared(t, async (options) => await openStore(schema.url, { setUp: setUpDemo, ...options }), 3000)
})

t.test('by default, two lists per client, refused after the store\'s wait for a connection; 0 sets no bound', async (t) => {
  t.equal(DEFAULT_STREAMS_PER_CLIENT, 2)
  const file = join(t.testdir(), 'catalogue.sqlite')
  const store = await openStore(file, { setUp: setUpDemo, acquireTimeoutMs: 10 })
  t.teardown(store.close)
  const held = [await started(store, 'key:a'), await started(store, 'key:a')]
  await t.rejects(started(store, 'key:a'), { code: 'AG_TOO_MANY_STREAMS', message: /none ended within 10 ms/ })
  for (const rows of held) await rows.return?.()
  const unbounded = await openStore(file, { streamsPerClient: 0 })
  t.teardown(unbounded.close)
  const many = await Promise.all(Array.from({ length: 5 }, async () => await started(unbounded, 'key:a')))
  t.equal(unbounded.readers().inUse, 5)
  for (const rows of many) await rows.return?.()
})

t.test('the refusal is a 429 the client may retry', async (t) => {
  t.match(PROBLEM_KINDS.AG_TOO_MANY_STREAMS, { status: 429, retryAfter: 5 })
})

t.test('a share of one says so', async (t) => {
  const stream = perClient(async function * rows () { yield [1] } as Store['stream'], 1, 0)
  const first = stream(undefined as never, 1, 'key:a')[Symbol.asyncIterator]()
  await first.next()
  await t.rejects(stream(undefined as never, 1, 'key:a')[Symbol.asyncIterator]().next(), { message: /already streaming 1 whole list, as many/ })
  await first.return?.()
})

t.test('a share that is not a whole number is refused', async (t) => {
  const stream = (async function * rows () {}) as Store['stream']
  for (const most of [-1, 1.5, Number.NaN]) t.throws(() => perClient(stream, most, 0), { name: 'RangeError', message: `streamsPerClient must be a whole number (0: no bound); got ${most}.` })
})
