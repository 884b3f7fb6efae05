// A kysely query as a source: COUNT over it, then LIMIT/OFFSET for a page, and a streamed read for
// the whole list. The query must order by a stable key, so pages never overlap or skip.
import { PostgresIntrospector, SqliteIntrospector, sql, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely'
import { countKey, sqliteDataVersion, uncachedCounts, versionedCountCache, type CountCache } from './count-cache.js'
import { postgresDataVersion } from './postgres-version.js'
import type { ListSource, RecordSource } from './source.js'

type AnyQuery<Row> = SelectQueryBuilder<any, any, Row>

export interface KyselySourceOptions<Row, Out> {
  /** Turns a stored row into a presented one (e.g. parses JSON columns). */
  decode?: (row: Row) => Out
  /** Rows fetched per round trip while streaming. */
  chunkSize?: number
  /**
   * Where totals are remembered while the data is unchanged; `false` counts on every request.
   * Default: the database's own (`useCountCache`), else one per database that its data's version
   * invalidates (SQLite's `PRAGMA data_version`, PostgreSQL's current snapshot); elsewhere none.
   */
  countCache?: CountCache | false
}

export function kyselySource<Args, Row, Out = Row> (

  db: Kysely<any>,
  query: (args: Args) => AnyQuery<Row>,
  options: KyselySourceOptions<Row, Out> = {}
): ListSource<Args, Out> {
  const decode = options.decode ?? ((row: Row) => row as unknown as Out)
  const chunkSize = options.chunkSize ?? 1000
  const cache = countCacheFor(db, options.countCache)
  const reader = streamReaders.get(db)
  return {
    count: async (args) => {
      // COUNT over the query itself, so filters, joins and DISTINCT count as they select.
      const counted = db.selectFrom(query(args).clearOrderBy().as('counted')).select(sql<string | number>`count(*)`.as('count')).compile()
      return await cache.count(countKey(counted.sql, counted.parameters), async () => Number((await db.executeQuery(counted)).rows[0].count))
    },
    slice: async (args, offset, limit) => (await query(args).limit(limit).offset(offset).execute()).map(decode),
    stream: (args) => decoded(reader === undefined ? query(args).stream(chunkSize) : reader.stream(query(args).compile()), decode)
  }
}

export function kyselyRecordSource<Args, Row, Out = Row> (
  query: (args: Args) => AnyQuery<Row>,
  options: Pick<KyselySourceOptions<Row, Out>, 'decode'> = {}
): RecordSource<Args, Out> {
  const decode = options.decode ?? ((row: Row) => row as unknown as Out)
  return {
    one: async (args) => {
      const row = await query(args).limit(1).executeTakeFirst()
      return row === undefined ? undefined : decode(row)
    }
  }
}

/** Where a database's whole-list reads run when not on its own connections (SQLite's readers). */
export interface StreamReader {
  stream: <Row>(query: CompiledQuery<Row>) => AsyncIterable<Row>
}

const streamReaders = new WeakMap<Kysely<any>, StreamReader>()

/** Makes `reader` read the streams of `db`'s sources; as with `useCountCache`, before the routes. */
export function useStreamReader (db: Kysely<any>, reader: StreamReader): void {
  streamReaders.set(db, reader)
}

const databaseCaches = new WeakMap<Kysely<any>, CountCache>()

/**
 * Makes `cache` the one `db`'s sources count through when they choose none, e.g. one whose totals
 * replicas share; sources made before keep theirs, so call it before the routes are registered.
 */
export function useCountCache (db: Kysely<any>, cache: CountCache): void {
  databaseCaches.set(db, cache)
}

/**
 * The cache a source counts through: the one chosen, or the database's own, shared by its sources
 * (one bound on what is remembered, one version); none where the data has no cheap version.
 */
function countCacheFor (db: Kysely<any>, chosen: CountCache | false | undefined): CountCache {
  if (chosen !== undefined) return chosen === false ? uncachedCounts : chosen
  let cache = databaseCaches.get(db)
  if (cache === undefined) {
    const version = dataVersionOf(db)
    if (version === undefined) return uncachedCounts
    cache = versionedCountCache({ version })
    databaseCaches.set(db, cache)
  }
  return cache
}

function dataVersionOf (db: Kysely<any>): (() => Promise<string>) | undefined {
  if (db.introspection instanceof SqliteIntrospector) return sqliteDataVersion(db)
  if (db.introspection instanceof PostgresIntrospector) return postgresDataVersion(db)
  return undefined
}

async function * decoded<Row, Out> (rows: AsyncIterable<Row>, decode: (row: Row) => Out): AsyncIterable<Out> {
  for await (const row of rows) yield decode(row)
}
