// The embedded default store: a SQLite file through better-sqlite3, so the gateway runs anywhere
// with no set-up.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { useStreamReader } from '../sources/index.js'
import type { Database, Db } from './database.js'
import { queryLogger, type StoreOptions } from './options.js'
import { sqliteReaders } from './sqlite-readers.js'

/** Opens (creating if needed) the SQLite database at `path`; `:memory:` for a private one. */
export function openSqlite (path: string, options: StoreOptions = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const connection = connect(path)
  connection.pragma('journal_mode = WAL')
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }), log: queryLogger(options) })
  // A private in-memory database has no file another connection could open: its streams stay on it.
  if (path !== ':memory:') useStreamReader(db, sqliteReaders(() => connect(path, { readonly: true, fileMustExist: true }), options))
  return db
}

/** One connection to the file, waiting up to 5 s for another connection's write lock. */
function connect (path: string, options?: SQLite.Options): SQLite.Database {
  const connection = new SQLite(path, options)
  connection.pragma('busy_timeout = 5000')
  return connection
}
