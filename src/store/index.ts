// Opens the store a DATABASE_URL names: a SQLite file (or `:memory:`) by default, PostgreSQL for a
// postgres:// (or postgresql://) URL. The kind is decided here, once, and carried by the Store.
import { randomUUID } from 'node:crypto'
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { batchesOf } from './batches.js'
import { kyselyRead } from './direct-reads.js'
import { versionedCountCache, type CountCache } from './count-cache.js'
import { postgresDataVersion, postgresIdentity, sqliteDataVersion } from './data-version.js'
import { DEFAULT_ACQUIRE_TIMEOUT_MS, type StoreOptions } from './options.js'
import { isPostgresUrl } from './postgres-url.js'
import { sharedCountCache, type TotalsStore } from './shared-count-cache.js'
import { openSqlite, type SqliteOptions } from './sqlite.js'
import { DEFAULT_STREAMS_PER_CLIENT, perClient } from './per-client.js'
import type { GatewayDatabase, Store } from './store.js'

export type { GatewayDatabase, ReaderUse, Store, StoreKind } from './store.js'
export type { StoreOptions } from './options.js'
export { isPostgresUrl } from './postgres-url.js'
export { uncachedCounts, versionedCountCache, type CountCache, type VersionedCountCacheOptions } from './count-cache.js'
export { sharedCountCache, type SharedCountCacheOptions, type TotalsStore } from './shared-count-cache.js'
export { isStoreUnavailable, MissingDatabaseError } from './errors.js'

export interface OpenStoreOptions<DB> extends StoreOptions, Pick<SqliteOptions, 'maxReaders' | 'create'> {
  /** Makes sure of the tables (and rows) the gateway reads; run on every start, so it must be idempotent. */
  setUp?: (db: Kysely<DB>) => Promise<void>
  /**
   * Where replicas share totals (Redis), so a change of the data costs them one COUNT between them.
   * Only PostgreSQL's data version reads the same on every replica: a SQLite store ignores it.
   */
  sharedTotals?: { readonly store: TotalsStore, readonly onError: (error: unknown) => void }
  /**
   * Whole lists one client may stream at once (default DEFAULT_STREAMS_PER_CLIENT); 0: no bound.
   * Its next waits for one of them as long as `acquireTimeoutMs`, then fails AG_TOO_MANY_STREAMS.
   */
  streamsPerClient?: number
}

export async function openStore<DB = GatewayDatabase> (databaseUrl: string, options: OpenStoreOptions<DB> = {}): Promise<Store<DB>> {
  const setUp = options.setUp ?? (async () => {})
  // A client's next list waits for one of its own as long as any query waits for a connection.
  const shared = (stream: Store<DB>['stream']): Store<DB>['stream'] => perClient(stream, options.streamsPerClient ?? DEFAULT_STREAMS_PER_CLIENT, options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS)
  if (!isPostgresUrl(databaseUrl)) {
    const sqlite = openSqlite<DB>(databaseUrl, options)
    const version = sqliteDataVersion(sqlite.db, sqlite.read)
    // A reopened file's connection counts its changes from scratch: the generation tells them apart.
    const dataVersion = async (): Promise<string> => `${sqlite.generation()}/${await version()}`
    // Another process's connection counts its own versions: this opening's name keeps them apart.
    const opening = randomUUID()
    return await opened(sqlite.db, async () => { await setUp(sqlite.db) }, async () => ({
      kind: 'sqlite',
      read: sqlite.read,
      stream: shared(sqlite.stream),
      readers: sqlite.readers,
      dataVersion,
      versionTag: async () => `${opening}/${await dataVersion()}`,
      // A read of the file itself: `select 1` is answered without it, so a locked or unreadable file would pass.
      probe: probe(sqlite.db, sql`select count(*) as tables from sqlite_schema`),
      counts: observed(versionedCountCache({ version: dataVersion }), options.onCount)
    }))
  }
  // Loaded only for a PostgreSQL URL: an SQLite gateway never needs the driver's modules.
  const { connectPostgres, setUpPostgres } = await import('./postgres.js')
  const postgres = connectPostgres<DB>(databaseUrl, options)
  const { db } = postgres
  return await opened(db, async () => { await setUpPostgres(postgres, setUp) }, async () => {
    const dataVersion = postgresDataVersion(db)
    const { sharedTotals } = options
    // Which cluster, database and view of it the snapshots are of: totals shared and plain lists'
    // validators are keyed by it.
    const identity = await postgresIdentity(db, options.onNotice)
    const counts: CountCache = sharedTotals === undefined
      ? versionedCountCache({ version: dataVersion })
      : sharedCountCache({ version: dataVersion, identity, ...sharedTotals })
    const versionTag = async (): Promise<string> => `${identity}/${await dataVersion()}`
    return { kind: 'postgres', read: kyselyRead(db), stream: shared((query, chunkSize) => batchesOf(db, query, chunkSize)), readers: postgres.readers, dataVersion, versionTag, counts: observed(counts, options.onCount), probe: probe(db, sql`select 1 as answered`) }
  })
}

/** The cache, telling `onCount` of each total whether it was remembered or counted. */
function observed (cache: CountCache, onCount: StoreOptions['onCount']): CountCache {
  if (onCount === undefined) return cache
  return {
    count: async (key, compute) => {
      let counted = false
      const total = await cache.count(key, async () => {
        counted = true
        return await compute()
      })
      onCount(counted ? 'miss' : 'hit')
      return total
    }
  }
}

/** The store once set up; a store that fails to set up is closed before the failure is thrown. */
async function opened<DB> (db: Kysely<DB>, setUp: () => Promise<void>, parts: () => Promise<Omit<Store<DB>, 'db' | 'close'>>): Promise<Store<DB>> {
  try {
    await setUp()
    return Object.freeze({ db, ...await parts(), close: async () => { await close(db) } })
  } catch (error) {
    await db.destroy()
    throw error
  }
}

function probe (db: Kysely<any>, statement: RawBuilder<unknown>): () => Promise<void> {
  return async () => { await statement.execute(db) }
}

async function close (db: Kysely<any>): Promise<void> {
  // Wait for the connection first: a stream to a client that hung up may still hold it.
  // It fails only when the store was already destroyed, which leaves nothing to wait for.
  await db.connection().execute(async () => {}).catch(() => {})
  await db.destroy()
}
