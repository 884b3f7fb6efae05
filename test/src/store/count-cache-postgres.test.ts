// The count cache on PostgreSQL: the current snapshot as the data's version. Reads leave it as it
// is, so a total is counted once; any write committed, by any connection or replica, moves it, so
// the next total is exact. Through Redis, two replicas (two pools) count a version once between them.
// The version is the whole cluster's, and other test files write to it meanwhile: a claim about
// what happens while nothing is written is checked over a stretch in which the version held.
// A user refused pg_control_system() (as managed services refuse it) still shares totals, under
// an identity read from what any user may see, and the log says so once.
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { CLIENT_OPTIONS } from '../../../plugins/redis.js'
import { kyselySource, type Condition } from '../../../src/sources/index.js'
import { IDENTITY_FALLBACK_NOTICE, postgresDataVersion, postgresIdentity } from '../../../src/store/data-version.js'
import { openStore, sharedCountCache, type OpenStoreOptions, type Store, type TotalsStore } from '../../../src/store/index.js'
import { ledgerEntry, setUpDemo } from '../../../demo/catalogue.js'
import type { Db } from '../../../demo/database.js'
import { freshRedisPrefix, freshSchema, needs, SERVICES, uniqueName, whileUnwritten, withPostgres } from '../../helpers/services.js'

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
    t.ok(await whileUnwritten(version, async () => { await db.selectFrom('ledger').selectAll().execute() }), 'a read')
    const before = await version()
    await other.updateTable('ledger').set({ memo: 'Entry one' }).where('id', '=', 1).execute()
    const after = await version()
    t.not(after, before, 'a write from another pool')
    t.equal(await postgresDataVersion(other)(), after, 'and both pools read the same version')
  })

  t.test('the version tag is the cluster\'s: the same from another pool, moved by a write', async (t) => {
    const otherStore = await open(t, url)
    const before = await store.versionTag()
    t.ok(before.startsWith(`${await postgresIdentity(db)}/`), 'named by the cluster, database and view')
    let tags: string[] = []
    t.ok(await whileUnwritten(postgresDataVersion(db), async () => { tags = [await otherStore.versionTag(), await store.versionTag()] }))
    t.equal(tags[0], tags[1], 'another pool, the same tag')
    await other.updateTable('ledger').set({ memo: 'Entry one, again' }).where('id', '=', 1).execute()
    t.not(await store.versionTag(), before, 'a write')
  })

  t.test('a total is counted once while nothing is written, then only the version is read', async (t) => {
    const source = kyselySource(store, ledger(db))
    t.ok(await whileUnwritten(postgresDataVersion(db), async () => {
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

  t.test('a superuser reads the system identifier: nothing to tell', async (t) => {
    const notices: string[] = []
    await open(t, url, undefined, { onNotice: (message) => { notices.push(message) }, sharedTotals: { store: mapTotals(), onError: (error) => { t.fail(String(error)) } } })
    t.strictSame(notices, [])
  })

  t.test('a user refused pg_control_system()', async (t) => {
    const limited = await limitedUser(t)

    t.test('is told once, and its replicas still count a version once between them', async (t) => {
      const totals = mapTotals()
      const notices: Array<{ message: string, detail?: Record<string, unknown> }> = []
      const replicaQueries: string[][] = [[], []]
      const replicas = await Promise.all(replicaQueries.map(async (replicaQueries) => await open(t, limited.url, replicaQueries, {
        onNotice: (message, detail) => { notices.push({ message, detail }) },
        sharedTotals: { store: totals, onError: (error) => { t.fail(String(error)) } }
      })))
      t.match(notices, [{ message: IDENTITY_FALLBACK_NOTICE, detail: { err: { code: '42501' } } }, { message: IDENTITY_FALLBACK_NOTICE }], 'one line per store opened')
      const [first, second] = replicas.map((replica) => kyselySource(replica, ledger(replica.db)))
      t.ok(await whileUnwritten(postgresDataVersion(replicas[0].db), async (run) => {
        for (const one of replicaQueries) one.length = 0
        t.equal(await first.count({}, everyEntry(run)), 1240)
        await totals.landed()
        t.equal(await second.count({}, everyEntry(run)), 1240)
      }))
      t.strictSame(replicaQueries.map((one) => one.filter((text) => /count\(\*\)/i.test(text)).length), [1, 0], 'the second replica was given the first one\'s total')
      t.equal(notices.length, 2, 'and told nothing more as they count')
    })

    t.test('its identity names the server, the database, the user and the search_path, never as a system identifier does', async (t) => {
      const { db: refused } = await open(t, limited.url)
      const identity = await postgresIdentity(refused)
      t.match(identity, new RegExp(`^server:127\\.0\\.0\\.1:\\d+@\\d+(?:\\.\\d+)?/test/${limited.role}/${limited.schema}$`))
      t.not(identity, await postgresIdentity(db), 'the superuser\'s, on the same cluster, is another')
      t.equal(await postgresIdentity(refused), identity, 'read again, the same: replicas agree on it')
    })
  })

  t.test('any other failure to read the identity is thrown, not taken for a refusal', async (t) => {
    const closed = await openStore(url, { setUp: setUpDemo })
    await closed.close()
    const notices: string[] = []
    await t.rejects(postgresIdentity(closed.db, (message) => { notices.push(message) }), { message: 'driver has already been destroyed' })
    t.strictSame(notices, [])
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
    t.ok(await whileUnwritten(postgresDataVersion(db), async (run) => {
      queries.length = 0
      otherQueries.length = 0
      t.equal(await first.count({}, everyEntry(run)), 1240)
      // The first stored its total without waiting; both share this client, which answers in order:
      // once a PING sent after that write is answered, the write has landed.
      await redis.ping()
      t.equal(await replica.count({}, everyEntry(run)), 1240)
    }))
    t.equal(counts(), 1, 'the first replica counted')
    t.notOk(otherQueries.some((text) => /count\(\*\)/i.test(text)), 'the second replica ran no COUNT')
  })
}

/** A pool on the catalogue at `url` with a ledger of 1240 entries, closed after `t`. */
async function open (t: Test, url: string, queries?: string[], options: OpenStoreOptions<unknown> = {}): Promise<Store> {
  const store = await openStore(url, { ...options, onQuery: (text) => { queries?.push(text) }, setUp: setUpDemo })
  t.teardown(() => store.close())
  return store
}

/** Totals shared in a Map, as Redis holds them; `landed` settles once every write so far has. */
function mapTotals (): TotalsStore & { landed: () => Promise<void> } {
  const entries = new Map<string, string>()
  const writes: Array<Promise<unknown>> = []
  return {
    get: async (key) => entries.get(key) ?? null,
    set: (key, value) => {
      const write = (async () => { entries.set(key, value) })()
      writes.push(write)
      return write
    },
    landed: async () => { await Promise.allSettled(writes) }
  }
}

/**
 * A login role of its own, refused pg_control_system() as managed services refuse it, owning a
 * schema of its own; both dropped after `t`. EXECUTE is revoked from PUBLIC in the test database,
 * and left so: superusers, as every other test connects, are not refused, and a test file running
 * beside this one never finds it granted back halfway.
 */
async function limitedUser (t: Test): Promise<{ url: string, role: string, schema: string }> {
  const role = uniqueName('gateway_limited')
  const schema = uniqueName('gateway_test')
  await withPostgres(async (client) => {
    await client.query(`create role ${role} login`)
    await client.query(`create schema ${schema} authorization ${role}`)
    // The store says `create schema if not exists` on every start, which asks for this even when it exists.
    await client.query(`grant create on database test to ${role}`)
    await client.query('revoke execute on function pg_control_system() from public')
    const { rows } = await client.query('select has_function_privilege($1, \'pg_control_system()\', \'execute\') as allowed', [role])
    t.equal(rows[0].allowed, false, `${role} may not execute pg_control_system()`)
  })
  t.teardown(() => withPostgres(async (client) => {
    // Its schema, its tables and its grant: all it owns or was given here.
    await client.query(`drop owned by ${role}`)
    await client.query(`drop role ${role}`)
  }))
  const url = new URL(SERVICES.PostgreSQL)
  url.username = role
  url.searchParams.set('schema', schema)
  return { url: url.toString(), role, schema }
}

/**
 * A condition every ledger entry meets, worded anew for each run: a count of its own, so a total
 * remembered in a run the version did not hold for (another file wrote) is not met again.
 */
function everyEntry (run: number): Condition[] {
  return [{ field: 'id', op: 'min', value: -run }]
}
