// The store a hand-written reference reads: the bench's SQLite file, or its PostgreSQL schema
// (BENCH_STORE=postgres), through the same kysely dialects the gateway uses. Nothing is created:
// the suite seeded it.
import { isPostgresUrl } from '../../../src/store/index.js'
import type { Database, Db } from '../../../demo/database.js'
import { connectPostgres } from '../../../src/store/postgres.js'
import { openSqlite } from '../../../src/store/sqlite.js'

export function openBenchStore (databaseUrl: string): Db {
  return isPostgresUrl(databaseUrl) ? connectPostgres<Database>(databaseUrl).db : openSqlite<Database>(databaseUrl).db
}
