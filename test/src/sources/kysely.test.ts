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
  const sizes: number[] = []
  for await (const batch of source.stream({})) {
    sizes.push(batch.length)
    ids.push(...batch)
  }
  t.strictSame(ids, Array.from({ length: 25 }, (_, i) => i + 1))
  t.strictSame(sizes, [4, 4, 4, 4, 4, 4, 1], 'a batch per chunk')
  const even: number[] = []
  for await (const batch of kyselySource(store, byAccount, { chunkSize: 5 }).stream({})) even.push(batch.length)
  t.strictSame(even, [5, 5, 5, 5, 5], 'rows a multiple of the chunk: no empty batch at the end')
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

t.test('conditions are WHERE clauses: the count, a slice and the stream are of the filtered rows', async (t) => {
  const source = kyselySource(store, byAccount, { countCache: false })
  const where = [{ field: 'account_id', op: 'equals', value: 2 }, { field: 'id', op: 'min', value: 5 }, { field: 'id', op: 'max', value: 20 }] as const
  t.equal(await source.count({}, where), 6)
  t.strictSame((await source.slice({}, 1, 2, where)).map((row) => row.id), [8, 11])
  const ids: number[] = []
  for await (const batch of source.stream({}, where)) ids.push(...batch.map((row) => row.id))
  t.strictSame(ids, [5, 8, 11, 14, 17, 20])
  t.equal(await source.count({ account: 1 }, [{ field: 'id', op: 'max', value: 10 }]), 4, 'beside the query\'s own conditions')
  t.ok(source.canFilter?.('anything', 'prefix'), 'any column, any comparison')
})

t.test('a prefix compares the first characters: letter case counts, and % and _ are characters', async (t) => {
  const tagged = await openStore(':memory:')
  t.teardown(() => tagged.close())
  const notesDb = tagged.db.withTables<{ notes: { id: number, text: string | null } }>()
  await notesDb.schema.createTable('notes').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('text', 'text').execute()
  await notesDb.insertInto('notes').values([{ id: 1, text: 'Invoice 1' }, { id: 2, text: 'invoice 2' }, { id: 3, text: '50% off' }, { id: 4, text: '500 off' }, { id: 5, text: 'a_b' }, { id: 6, text: 'axb' }, { id: 7, text: 'é accent' }, { id: 8, text: null }]).execute()
  const notes = kyselySource(tagged, () => notesDb.selectFrom('notes').select('id').orderBy('id'), { countCache: false })
  const ids = async (value: string): Promise<number[]> => (await notes.slice({}, 0, 10, [{ field: 'text', op: 'prefix', value }])).map((row) => row.id)
  t.strictSame(await ids('Invoice'), [1])
  t.strictSame(await ids('50%'), [3])
  t.strictSame(await ids('a_'), [5])
  t.strictSame(await ids('é'), [7])
})

t.test('a boolean is compared as SQL\'s literal: SQLite, which binds none, stores it as 1 or 0', async (t) => {
  const flags = await openStore(':memory:')
  t.teardown(() => flags.close())
  const flagsDb = flags.db.withTables<{ flags: { id: number, on: number } }>()
  await flagsDb.schema.createTable('flags').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('on', 'integer').execute()
  await flagsDb.insertInto('flags').values([{ id: 1, on: 1 }, { id: 2, on: 0 }, { id: 3, on: 1 }]).execute()
  const source = kyselySource(flags, () => flagsDb.selectFrom('flags').select('id').orderBy('id'), { countCache: false })
  t.strictSame((await source.slice({}, 0, 9, [{ field: 'on', op: 'equals', value: true }])).map((row) => row.id), [1, 3])
  t.equal(await source.count({}, [{ field: 'on', op: 'equals', value: false }]), 1)
})

t.test('a field is read from its mapped column', async (t) => {
  const source = kyselySource(store, () => db.selectFrom('ledger as l').select(['l.id as id']).orderBy('l.id'), { columns: { account: 'l.account_id' }, countCache: false })
  t.equal(await source.count({}, [{ field: 'account', op: 'equals', value: 3 }]), 8)
})

t.test('a remembered total is keyed by the filters\' values: each filtered count is its own', async (t) => {
  const counted: string[] = []
  const cache = { count: async (key: string, compute: () => Promise<number>) => { counted.push(key); return await compute() } }
  const source = kyselySource(store, byAccount, { countCache: cache })
  t.equal(await source.count({}, [{ field: 'account_id', op: 'equals', value: 1 }]), 9)
  t.equal(await source.count({}, [{ field: 'account_id', op: 'equals', value: 2 }]), 8)
  t.equal(await source.count({}), 25)
  t.equal(new Set(counted).size, 3, 'three keys for three filterings')
  t.match(counted[0], /where "account_id" = \?/)
  t.match(counted[0], /\[1\]$/)
})
