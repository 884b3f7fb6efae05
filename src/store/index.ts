// Opens the store a DATABASE_URL names, with the catalogue's schema and demo data in place.
import type { Db } from './database.js'
import { seedDemo } from './demo.js'
import { createSchema } from './schema.js'
import type { StoreOptions } from './options.js'
import { openSqlite } from './sqlite.js'

export type { StoreOptions } from './options.js'
export type { Database, Db, InvoiceTable } from './database.js'

export async function openStore (databaseUrl: string, options: StoreOptions = {}): Promise<Db> {
  const db = openSqlite(databaseUrl, options)
  try {
    await createSchema(db)
    await seedDemo(db)
  } catch (error) {
    await db.destroy()
    throw error
  }
  return db
}
