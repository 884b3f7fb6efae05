// Each store's version of its data, for the count cache: one O(1) statement, read before every
// count, that changes whenever the counted data may have.
//
// PostgreSQL has no data_version: the current snapshot stands in for it. `pg_current_snapshot()`
// (PostgreSQL 13+) changes exactly when a transaction that was given an id (one that wrote anything, anywhere in the cluster) commits or
// aborts, and reads the same on every connection of every replica in between: an O(1) statement
// that no write can slip past, since two equal snapshots see the same rows.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { kyselyRead, type Read } from './direct-reads.js'
import type { StoreOptions } from './options.js'

export function postgresDataVersion (db: Kysely<any>): () => Promise<string> {
  return versionStatement(db, sql<{ version: string }>`select pg_current_snapshot()::text as version`)
}

/**
 * Which data a connection sees: the cluster, the database, the user (row-level security may hide
 * rows from one user) and the search_path (which schema an unqualified table is in). Totals shared
 * beyond this process are keyed by it, as a version and a query's SQL name a total only within it.
 * The cluster is named by its system identifier where this user may read it; `onNotice` is told,
 * once per call (once per store opened), when it may not and the fallback below is used instead.
 */
export async function postgresIdentity (db: Kysely<any>, onNotice?: StoreOptions['onNotice']): Promise<string> {
  try {
    return (await CLUSTER_IDENTITY.execute(db)).rows[0].identity
  } catch (error) {
    if ((error as { code?: unknown }).code !== INSUFFICIENT_PRIVILEGE) throw error
    onNotice?.(IDENTITY_FALLBACK_NOTICE, { err: error })
    return (await SERVER_IDENTITY.execute(db)).rows[0].identity
  }
}

/** Managed services (and careful administrators) revoke EXECUTE on pg_control_system() from PUBLIC. */
const INSUFFICIENT_PRIVILEGE = '42501'

export const IDENTITY_FALLBACK_NOTICE = 'pg_control_system() is not allowed to this user: totals shared through Redis and plain lists\' validators are keyed by the server\'s address, port and start time instead of the cluster\'s system identifier'

const CLUSTER_IDENTITY = sql<{ identity: string }>`select concat_ws('/', (select system_identifier from pg_control_system()), current_database(), current_user, current_setting('search_path')) as identity`

/**
 * Without the system identifier, the cluster is named by what any user may read: the address and
 * port the server answers on (null over a Unix socket, hence coalesced: concat_ws would drop it and
 * shift the rest) and the moment it started, in epoch seconds so that no session's TimeZone changes
 * the text. It begins with `server:`, so it never equals a system identifier's form.
 * The residual risk: two clusters sharing one Redis that answer on the same address and port (each
 * behind a pooler on its own 127.0.0.1, or in containers on look-alike networks) stay apart only by
 * their start times, which would have to agree to the microsecond, with the same database, user,
 * search_path, SQL and snapshot on top. The cost: a restart or a failover changes the identity, so
 * replicas opened before it and after it count for themselves (never a wrong total) until restarted.
 */
const SERVER_IDENTITY = sql<{ identity: string }>`select concat_ws('/', concat('server:', coalesce(host(inet_server_addr()), 'socket'), ':', coalesce(inet_server_port(), 0), '@', extract(epoch from pg_postmaster_start_time())), current_database(), current_user, current_setting('search_path')) as identity`

/**
 * SQLite's version of the data, one O(1) statement: `data_version` moves when another connection
 * (another process, a replica's writer) commits, but never for this connection's own writes; so
 * `total_changes()` (rows this connection changed) and `schema_version` (tables created, dropped,
 * altered) are part of it too.
 */
export function sqliteDataVersion (db: Kysely<any>, read: Read): () => Promise<string> {
  return versionStatement(db, sql.raw<{ version: string }>(SQLITE_DATA_VERSION_SQL), read)
}

/**
 * SQLite's version statement: it reads nothing but the snapshot and this connection's own writes,
 * so a file's store runs it once per turn's read transaction (turn-reads.ts), which a write ends.
 */
export const SQLITE_DATA_VERSION_SQL = "select (select data_version from pragma_data_version) || ':' || (select schema_version from pragma_schema_version) || ':' || total_changes() as version"

/** A store's data version, read by one statement selecting `version`. */
export function versionStatement (db: Kysely<any>, statement: RawBuilder<{ version: string }>, read: Read = kyselyRead(db)): () => Promise<string> {
  // Compiled once: this runs before every count, and its SQL never changes.
  const query = statement.compile(db)
  return async () => (await read(query))[0].version
}
