// Each store's version of its data, for the count cache: one O(1) statement, read before every
// count, that changes whenever the counted data may have.
//
// PostgreSQL has no data_version: the current snapshot stands in for it. `pg_current_snapshot()`
// (PostgreSQL 13+) changes exactly when a transaction that was given an id (one that wrote anything, anywhere in the cluster) commits or
// aborts, and reads the same on every connection of every replica in between: an O(1) statement
// that no write can slip past, since two equal snapshots see the same rows.
import { sql, type Kysely, type RawBuilder } from 'kysely'

export function postgresDataVersion (db: Kysely<any>): () => Promise<string> {
  return versionStatement(db, sql<{ version: string }>`select pg_current_snapshot()::text as version`)
}

/**
 * Which data a connection sees: the cluster, the database, the user (row-level security may hide
 * rows from one user) and the search_path (which schema an unqualified table is in). Totals shared
 * beyond this process are keyed by it, as a version and a query's SQL name a total only within it.
 */
export async function postgresIdentity (db: Kysely<any>): Promise<string> {
  const { rows } = await sql<{ identity: string }>`select concat_ws('/', (select system_identifier from pg_control_system()), current_database(), current_user, current_setting('search_path')) as identity`.execute(db)
  return rows[0].identity
}

/**
 * SQLite's version of the data, one O(1) statement: `data_version` moves when another connection
 * (another process, a replica's writer) commits, but never for this connection's own writes; so
 * `total_changes()` (rows this connection changed) and `schema_version` (tables created, dropped,
 * altered) are part of it too.
 */
export function sqliteDataVersion (db: Kysely<any>): () => Promise<string> {
  return versionStatement(db, sql<{ version: string }>`select (select data_version from pragma_data_version) || ':' || (select schema_version from pragma_schema_version) || ':' || total_changes() as version`)
}

/** A store's data version, read by one statement selecting `version`. */
export function versionStatement (db: Kysely<any>, statement: RawBuilder<{ version: string }>): () => Promise<string> {
  // Compiled once: this runs before every count, and its SQL never changes.
  const query = statement.compile(db)
  return async () => (await db.executeQuery(query)).rows[0].version
}
