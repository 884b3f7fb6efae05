// PostgreSQL's version of the data, for the count cache. There is no data_version: the current
// snapshot stands in for it. `pg_current_snapshot()` (PostgreSQL 13+) changes exactly when a
// transaction that was given an id (one that wrote anything, anywhere in the cluster) commits or
// aborts, and reads the same on every connection of every replica in between: an O(1) statement
// that no write can slip past, since two equal snapshots see the same rows.
import { sql, type Kysely } from 'kysely'
import { versionStatement } from './count-cache.js'

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
