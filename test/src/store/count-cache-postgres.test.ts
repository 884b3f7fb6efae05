// The count cache on PostgreSQL: the current snapshot as the data's version. Reads leave it as it
// is, so a total is counted once; any write committed, by any connection or replica, moves it, so
// the next total is exact. Through Redis, two replicas (two pools) count a version once between them.
// The version is the whole cluster's, and other test files write to it meanwhile: a claim about
// what happens while nothing is written is checked over a stretch in which the version held.
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { CLIENT_OPTIONS } from '../../../plugins/redis.js'
import { kyselySource } from '../../../src/sources/index.js'
import { postgresDataVersion, postgresIdentity } from '../../../src/store/data-version.js'
import { ledgerEntry } from '../../../src/store/demo.js'
import { openStore, setUpDemo, sharedCountCache, type Db, type Store } from '../../../src/store/index.js'
import { freshRedisPrefix, freshSchema, needs } from '../../helpers/services.js'

if (await needs(t, 'PostgreSQL')) {
  const { url, drop } = freshSchema()
  const queries: string[] = []
  const store = await open(t, url, queries)
  const { db } = store
  /** Another pool on the same schema, as another replica holds. */
  const { db: other } = await open(t, url)
  t.teardown(drop)

  const ledger = (pool: Db) => () => pool.selectFrom('ledger').select(['id', 'memo']).orderBy('id')
  const counts = () => queries.filter((text) => /count\(\*\)/i.test(text)).length

  t.test('reads leave the version as it is; a committed write moves it', async (t) => {
    const version = postgresDataVersion(db)
    t.ok(await whileUnwritten(db, async () => { await db.selectFrom('ledger').selectAll().execute() }), 'a read')
    const before = await version()
    await other.updateTable('ledger').set({ memo: 'Entry one' }).where('id', '=', 1).execute()
    const after = await version()
    t.not(after, before, 'a write from another pool')
    t.equal(await postgresDataVersion(other)(), after, 'and both pools read the same version')
  })

  t.test('a total is counted once while nothing is written, then only the version is read', async (t) => {
    const source = kyselySource(store, ledger(db))
    t.ok(await whileUnwritten(db, async () => {
      t.equal(await source.count({}), 1240)
      queries.length = 0
      t.equal(await source.count({}), 1240)
    }))
    t.equal(counts(), 0)
    t.match(queries, [/pg_current_snapshot/], 'one cheap version read')
  })

  t.test('a write from another replica makes the next total exact', async (t) => {
    const source = kyselySource(store, ledger(db))
    await source.count({})
    await other.insertInto('ledger').values(ledgerEntry(1241)).execute()
    queries.length = 0
    t.equal(await source.count({}), 1241)
    t.equal(counts(), 1)
    await other.deleteFrom('ledger').where('id', '=', 1241).execute()
    t.equal(await source.count({}), 1240)
  })

  t.test('the identity names the cluster, the database, the user and the search_path', async (t) => {
    const identity = await postgresIdentity(db)
    t.match(identity, /^\d+\/test\/postgres\/gateway_test_\d+_[0-9a-f]{8}$/)
    const elsewhere = freshSchema()
    const tenant = await open(t, elsewhere.url)
    t.teardown(elsewhere.drop)
    t.not(await postgresIdentity(tenant.db), identity, 'another schema is other data')
  })

  t.test('through Redis, two replicas count a version once between them', async (t) => {
    if (!await needs(t, 'Redis')) return
    const { url: redisUrl, clear } = freshRedisPrefix()
    const redis = new Redis(redisUrl, CLIENT_OPTIONS)
    await redis.connect()
    t.teardown(async () => {
      redis.disconnect()
      await clear()
    })
    const otherQueries: string[] = []
    const second = await open(t, url, otherQueries)
    const shared = async (pool: Db) => sharedCountCache({ version: postgresDataVersion(pool), identity: await postgresIdentity(pool), store: redis, onError: (error) => { t.fail(String(error)) } })
    const first = kyselySource(store, ledger(db), { countCache: await shared(db) })
    const replica = kyselySource(second, ledger(second.db), { countCache: await shared(second.db) })
    t.ok(await whileUnwritten(db, async () => {
      queries.length = 0
      otherQueries.length = 0
      t.equal(await first.count({}), 1240)
      // The first stored its total without waiting; both share this client, which answers in order:
      // once a PING sent after that write is answered, the write has landed.
      await redis.ping()
      t.equal(await replica.count({}), 1240)
    }))
    t.equal(counts(), 1, 'the first replica counted')
    t.notOk(otherQueries.some((text) => /count\(\*\)/i.test(text)), 'the second replica ran no COUNT')
  })
}

/** A pool on the catalogue at `url` with a ledger of 1240 entries, closed after `t`. */
async function open (t: Test, url: string, queries?: string[]): Promise<Store> {
  const store = await openStore(url, { onQuery: (text) => { queries?.push(text) }, setUp: setUpDemo })
  t.teardown(() => store.close())
  return store
}

/** Runs `work` until one run starts and ends at the same version (up to 50 runs): true once one did. */
async function whileUnwritten (db: Db, work: () => Promise<void>): Promise<boolean> {
  const version = postgresDataVersion(db)
  for (let run = 0; run < 50; run++) {
    const before = await version()
    await work()
    if (await version() === before) return true
  }
  return false
}
