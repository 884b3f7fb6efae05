// The embedded default store: a SQLite file through better-sqlite3, so the gateway runs anywhere
// with no set-up.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { queryLogger, type StoreOptions } from './options.js'
import { sqliteReaders } from './sqlite-readers.js'
import type { Store } from './store.js'

export type SqliteStore<DB> = Pick<Store<DB>, 'db' | 'stream'>

/**
 * Opens (creating if needed) the SQLite database at `path`; `:memory:` for a private one. Whole
 * lists stream on read-only connections of their own (sqlite-readers.ts); a private in-memory
 * database has no file another connection could open, so its streams stay on its one connection.
 */
export function openSqlite<DB> (path: string, options: StoreOptions = {}): SqliteStore<DB> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const connection = connect(path)
  connection.pragma('journal_mode = WAL')
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: connection }), log: queryLogger(options) })
  if (path === ':memory:') return { db, stream: (query, chunkSize) => query.stream(chunkSize) }
  const readers = sqliteReaders(() => connect(path, { readonly: true, fileMustExist: true }), options)
  return { db, stream: (query) => readers.stream(query.compile()) }
}

/** One connection to the file, waiting up to 5 s for another connection's write lock. */
function connect (path: string, options?: SQLite.Options): SQLite.Database {
  const connection = new SQLite(path, options)
  connection.pragma('busy_timeout = 5000')
  return connection
}
