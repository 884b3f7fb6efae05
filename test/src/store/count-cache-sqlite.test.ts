// The count cache wired into the kysely source: on SQLite a total is counted once while the data is
// unchanged, and exact again after any write, from this connection or another one.
import { join } from 'node:path'
import { setImmediate as turn } from 'node:timers/promises'
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type DatabaseConnection, type Driver } from 'kysely'
import t from 'tap'
import { kyselySource } from '../../../src/sources/index.js'
import { openStore, uncachedCounts, versionedCountCache } from '../../../src/store/index.js'
import { inWriteTransaction } from '../../../src/store/write.js'

/** The tables of this test, not the catalogue's. */
interface Tables {
  ledger: { id: number, memo: string, account_id: number }
  scratch: { id: number }
}

const path = join(t.testdir(), 'ledger.sqlite')
const queries: string[] = []
const store = await openStore<Tables>(path, { onQuery: (sql) => { queries.push(sql) } })
const { db } = store
/** Another connection to the same file, as another process or replica would hold. */
const { db: other, close: closeOther } = await openStore<Tables>(path)
t.teardown(async () => { await store.close(); await closeOther() })

await db.schema.createTable('ledger').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('memo', 'text').addColumn('account_id', 'integer').execute()
await db.insertInto('ledger').values(Array.from({ length: 25 }, (_, i) => ({ id: i + 1, memo: `Entry ${i + 1}`, account_id: (i % 3) + 1 }))).execute()

const byAccount = ({ account }: { account?: number }) => {
  const all = db.selectFrom('ledger').select(['id', 'memo']).orderBy('id')
  return account === undefined ? all : all.where('account_id', '=', account)
}

/** The totals of `source` for each argument set, and the COUNTs it took to get them. */
async function counted (source: ReturnType<typeof kyselySource<{ account?: number }, unknown>>, ...argSets: Array<{ account?: number }>) {
  queries.length = 0
  const totals: number[] = []
  for (const args of argSets) totals.push(await source.count(args))
  return { totals, counts: queries.filter((sql) => /count\(\*\)/i.test(sql)).length }
}

t.test('unchanged data: a total is counted once, then only the version is read', async (t) => {
  const source = kyselySource(store, byAccount)
  t.strictSame(await counted(source, {}), { totals: [25], counts: 1 })
  t.strictSame(await counted(source, {}, {}), { totals: [25, 25], counts: 0 })
  t.equal(queries.length, 2, 'one cheap version read per request')
  t.match(queries[0], /data_version/)
})

t.test('each argument set is its own total', async (t) => {
  const source = kyselySource(store, byAccount)
  await source.count({})
  t.strictSame(await counted(source, { account: 1 }, { account: 2 }, { account: 1 }), { totals: [9, 8, 9], counts: 2 })
})

t.test('sources on one database share its totals', async (t) => {
  await kyselySource(store, byAccount).count({})
  t.strictSame(await counted(kyselySource(store, byAccount), {}), { totals: [25], counts: 0 })
})

t.test('a write from another connection to the file makes the next count exact', async (t) => {
  const source = kyselySource(store, byAccount)
  await source.count({})
  await other.insertInto('ledger').values({ id: 26, memo: 'Entry 26', account_id: 1 }).execute()
  // A request sent once another process's write has returned is read in a later turn of the event
  // loop: a turn's reads share one snapshot (src/store/turn-reads.ts).
  await turn()
  t.strictSame(await counted(source, {}, { account: 1 }), { totals: [26, 10], counts: 2 })
  t.strictSame(await counted(source, {}), { totals: [26], counts: 0 }, 'then it is remembered again')
  await other.deleteFrom('ledger').where('id', '=', 26).execute()
  await turn()
  t.strictSame(await counted(source, {}), { totals: [25], counts: 1 })
})

t.test('this connection\'s own writes make the next count exact too', async (t) => {
  const source = kyselySource(store, byAccount)
  await source.count({})
  await db.insertInto('ledger').values({ id: 26, memo: 'Entry 26', account_id: 1 }).execute()
  t.strictSame(await counted(source, {}), { totals: [26], counts: 1 })
  await db.deleteFrom('ledger').where('id', '=', 26).execute()
  t.strictSame(await counted(source, {}), { totals: [25], counts: 1 })
})

t.test('the data version is read after a write in progress on this connection ends, never inside it', async (t) => {
  // Read inside the transaction, total_changes() would count rows not yet committed: a reader
  // (another connection, seeing committed rows only) could then be tagged with a version its rows do not have.
  const before = await store.dataVersion()
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  let inserted!: () => void
  const begun = new Promise<void>((resolve) => { inserted = resolve })
  const writing = inWriteTransaction(store, async (tx) => {
    await tx.insertInto('ledger').values({ id: 26, memo: 'Entry 26', account_id: 1 }).execute()
    inserted()
    await held
  })
  await begun
  const order: string[] = []
  const read = store.dataVersion().then((version) => { order.push('version read'); return version })
  // Let every ready continuation run: a read that did not wait would have settled by now.
  await turn()
  order.push('write released')
  release()
  await writing
  const during = await read
  t.strictSame(order, ['write released', 'version read'])
  t.not(during, before, 'the committed row is in the version read')
  t.equal(during, await store.dataVersion(), 'and it is the version of the data as committed')
  await db.deleteFrom('ledger').where('id', '=', 26).execute()
})

t.test('a table dropped and created again, emptier, is counted again', async (t) => {
  const scratch = () => db.selectFrom('scratch').selectAll().orderBy('id')
  await db.schema.createTable('scratch').addColumn('id', 'integer', (c) => c.primaryKey()).execute()
  await db.insertInto('scratch').values([{ id: 1 }, { id: 2 }]).execute()
  const source = kyselySource(store, scratch)
  t.equal(await source.count({}), 2)
  // DROP TABLE changes no row count SQLite reports: only the schema version tells.
  await db.schema.dropTable('scratch').execute()
  await db.schema.createTable('scratch').addColumn('id', 'integer', (c) => c.primaryKey()).execute()
  t.equal(await source.count({}), 0)
})

t.test('countCache: false counts on every request', async (t) => {
  t.strictSame(await counted(kyselySource(store, byAccount, { countCache: false }), {}, {}), { totals: [25, 25], counts: 2 })
})

t.test('a cache given in the options is the one used', async (t) => {
  const keys: string[] = []
  const shared = versionedCountCache({ version: async () => 'fixed' })
  const source = kyselySource(store, byAccount, {
    countCache: { count: (key, compute) => { keys.push(key); return shared.count(key, compute) } }
  })
  t.strictSame(await counted(source, { account: 3 }, { account: 3 }), { totals: [8, 8], counts: 1 })
  t.equal(keys.length, 2)
  t.match(keys[0], /count\(\*\)[^]*\n\[3\]$/)
})

t.test('a store of another dialect, with no cheap data version, is uncached: every request counts', async (t) => {
  const ran: string[] = []
  const connection: DatabaseConnection = {
    executeQuery: async (query) => { ran.push(query.sql); return { rows: [{ count: '7' }] as never[] } },
    streamQuery: () => { throw new Error('not streamed') }
  }
  const driver: Driver = Object.assign(new DummyDriver(), { acquireConnection: async () => connection })
  // A dialect that is not SQLite (its introspector is not SQLite's): no data version to remember
  // totals under, so its store counts through `uncachedCounts`, the source's default being the store's.
  const foreign = new Kysely<{ ledger: { id: number } }>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: () => Object.create(null),
      createQueryCompiler: () => new SqliteQueryCompiler()
    }
  })
  t.notOk(foreign.introspection instanceof SqliteIntrospector)
  const source = kyselySource({ db: foreign, stream: () => { throw new Error('not streamed') }, counts: uncachedCounts }, () => foreign.selectFrom('ledger').selectAll().orderBy('id'))
  t.equal(await source.count({}), 7)
  t.equal(await source.count({}), 7)
  t.equal(ran.length, 2)
  t.ok(ran.every((sql) => /count\(\*\)/.test(sql)))
})
