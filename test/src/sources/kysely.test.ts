import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { kyselyRecordSource, kyselySource } from '../../../src/sources/index.js'
import { openStore } from '../../../src/store/index.js'

const queries: string[] = []
const store = await openStore(':memory:', { onQuery: (sql) => { queries.push(sql) } })
const { db } = store
t.teardown(() => store.close())
await db.schema.createTable('ledger').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('memo', 'text').addColumn('amount', 'text').addColumn('posted_at', 'text').addColumn('account_id', 'integer').execute()
await db.insertInto('ledger').values(Array.from({ length: 25 }, (_, i) => ({ id: i + 1, memo: `Entry ${i + 1}`, amount: '1.00', posted_at: '2026-01-01T00:00:00Z', account_id: (i % 3) + 1 }))).execute()

const byAccount = ({ account }: { account?: number }) => {
  const all = db.selectFrom('ledger').select(['id', 'memo']).orderBy('id')
  return account === undefined ? all : all.where('account_id', '=', account)
}

t.test('COUNT runs over the query itself, filters included', async (t) => {
  const source = kyselySource(store, byAccount)
  t.equal(await source.count({}), 25)
  t.equal(await source.count({ account: 1 }), 9)
})

t.test('a slice is one LIMIT/OFFSET query in the query\'s order', async (t) => {
  const source = kyselySource(store, byAccount)
  queries.length = 0
  t.strictSame(await source.slice({ account: 2 }, 1, 2), [{ id: 5, memo: 'Entry 5' }, { id: 8, memo: 'Entry 8' }])
  t.equal(queries.length, 1)
  t.match(queries[0], /limit \? offset \?/)
})

t.test('the stream yields every row in order, decoded, across chunks', async (t) => {
  const source = kyselySource(store, byAccount, { decode: (row) => row.id, chunkSize: 4 })
  const ids: number[] = []
  for await (const id of source.stream({})) ids.push(id)
  t.strictSame(ids, Array.from({ length: 25 }, (_, i) => i + 1))
})

t.test('a record source fetches one decoded row, or undefined', async (t) => {
  const source = kyselyRecordSource(({ id }: { id: number }) => byAccount({}).where('id', '=', id), { decode: (row) => row.memo })
  t.equal(await source.one({ id: 7 }), 'Entry 7')
  t.equal(await source.one({ id: 70 }), undefined)
  const raw = kyselyRecordSource(({ id }: { id: number }) => byAccount({}).where('id', '=', id))
  t.strictSame(await raw.one({ id: 1 }), { id: 1, memo: 'Entry 1' })
})

t.test('a version names the data and the statement: the same while both are, another for either', async (t) => {
  const source = kyselySource(store, byAccount)
  const version = source.version!
  const all = await version({})
  t.equal(await version({}), all, 'unchanged data, the same statement')
  t.not(await version({ account: 1 }), all, 'another statement')
  t.not(await version({ account: 2 }), await version({ account: 1 }), 'the same statement, other parameters')
  await db.updateTable('ledger').set({ memo: 'Entry one' }).where('id', '=', 1).execute()
  t.not(await version({}), all, 'a write')
})

t.test('a store that cannot name its versions gives a source without one', async (t) => {
  const { db, stream, counts } = store
  t.equal(kyselySource({ db, stream, counts }, byAccount).version, undefined)
})

t.test('two openings of one SQLite file never share a version tag: each counts its own versions', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'versions-')), 'one.db')
  const [first, second] = [await openStore(path), await openStore(path)]
  t.teardown(async () => { await first.close(); await second.close() })
  t.equal(await first.dataVersion(), await second.dataVersion(), 'the same counters')
  t.not(await first.versionTag(), await second.versionTag(), 'named apart')
})
