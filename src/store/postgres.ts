// PostgreSQL, the store several replicas share: kysely over a `pg` pool, the catalogue in the
// schema the URL names (created when missing), plain lists streamed through a server-side cursor.
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { DEFAULT_ACQUIRE_TIMEOUT_MS, queryLogger, type StoreOptions } from './options.js'
import type { ReaderUse } from './store.js'
import { cursorPool, DeclaredCursor } from './postgres-cursor.js'
import { postgresSettings } from './postgres-url.js'

export interface PostgresStore<DB> {
  readonly db: Kysely<DB>
  /** The schema the URL names, or undefined for the server's default search_path. */
  readonly schema: string | undefined
  /** Pooled connections checked out, and queries waiting for one. */
  readonly readers: () => ReaderUse
}

/**
 * Every replica sets the catalogue up under this advisory lock (one per database), so replicas
 * starting together never race to create the same schema or table, which PostgreSQL refuses.
 */
export const SET_UP_LOCK = 0x61_75_64_67

/**
 * Dates and timestamps are handed over as PostgreSQL writes them, values as stored. pg's own
 * parsers make a JavaScript Date of each: a `date` or a `timestamp` (without time zone) names no
 * instant, and becomes one in the zone of the process, shifted wherever that zone is not UTC (a
 * declaration says how a timestamp's wall time is read: config-file/columns.ts); a `timestamptz`
 * loses its microseconds.
 */
const AS_WRITTEN = new Set<number>([pg.types.builtins.DATE, pg.types.builtins.TIMESTAMP, pg.types.builtins.TIMESTAMPTZ])

function typeParser (oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  return AS_WRITTEN.has(oid) ? (value) => value : pg.types.getTypeParser(oid, format)
}

/** Connects lazily: no connection is opened before the first query. */
export function connectPostgres<DB> (url: string, options: StoreOptions = {}): PostgresStore<DB> {
  const { connectionString, options: startup, schema } = postgresSettings(url)
  const pool = new pg.Pool({
    connectionString,
    options: startup,
    // pg-pool bounds with it both waits a query may meet: for a pooled connection to come free (a
    // few slow plain lists may hold them all, and agents' requests would queue behind them without
    // end) and for a new one to open. A query that waited it out for a pooled connection fails with
    // 'timeout exceeded when trying to connect', which errors.ts maps to a 503 the client may retry.
    connectionTimeoutMillis: options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
    // Idle connections do not keep the process alive on their own (the listener does, while it serves).
    allowExitOnIdle: true,
    types: { getTypeParser: typeParser }
  })
  // Without a listener, an idle client's failure would be an uncaught error ending the process.
  pool.on('error', (error) => { options.onConnectionError?.(error) })
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: cursorPool(pool, (error) => { options.onConnectionError?.(error) }), cursor: DeclaredCursor }), log: queryLogger(options) })
  // Checked-out connections, and queries waiting for one: pg-pool's own counts, read when scraped.
  return { db, schema, readers: () => ({ inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }) }
}

/** Runs `setUp` on one connection, in `schema` (created if missing), holding the set-up lock. */
export async function setUpPostgres<DB> ({ db, schema }: PostgresStore<DB>, setUp: (db: Kysely<DB>) => Promise<void>): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${SET_UP_LOCK})`.execute(connection)
    try {
      if (schema !== undefined) await sql`create schema if not exists ${sql.id(schema)}`.execute(connection)
      await setUp(connection)
    } finally {
      await sql`select pg_advisory_unlock(${SET_UP_LOCK})`.execute(connection)
    }
  })
}
