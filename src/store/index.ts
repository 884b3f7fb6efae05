// Opens the store a DATABASE_URL names, with the catalogue's schema and demo data in place: a
// SQLite file by default, PostgreSQL for a postgres:// (or postgresql://) URL.
import type { Db } from './database.js'
import { seedDemo } from './demo.js'
import { createSchema } from './schema.js'
import type { StoreOptions } from './options.js'
import { connectPostgres, setUpPostgres } from './postgres.js'
import { isPostgresUrl } from './postgres-url.js'
import { openSqlite } from './sqlite.js'

export type { StoreOptions } from './options.js'
export type { Database, Db, InvoiceTable } from './database.js'
export { isPostgresUrl } from './postgres-url.js'

export async function openStore (databaseUrl: string, options: StoreOptions = {}): Promise<Db> {
  const postgres = isPostgresUrl(databaseUrl) ? connectPostgres(databaseUrl, options) : undefined
  const db = postgres?.db ?? openSqlite(databaseUrl, options)
  try {
    await (postgres === undefined ? setUp(db) : setUpPostgres(postgres, setUp))
  } catch (error) {
    await db.destroy()
    throw error
  }
  return db
}

/** The catalogue's tables and demo rows; safe on every start. */
async function setUp (db: Db): Promise<void> {
  await createSchema(db)
  await seedDemo(db)
}
