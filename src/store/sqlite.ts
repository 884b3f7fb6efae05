// The embedded default store: a SQLite file through better-sqlite3, so the gateway runs anywhere
// with no set-up.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import type { SelectQueryBuilder } from 'kysely'
import { DEFAULT_ACQUIRE_TIMEOUT_MS, queryLogger, type StoreOptions } from './options.js'
import { batchesOf } from './batches.js'
import { compiledOnce } from './compiled.js'
import { directSqlite, type Read } from './direct-reads.js'
import { SQLITE_DATA_VERSION_SQL } from './data-version.js'
import { firstBatchOf } from './first-batch.js'
import { MissingDatabaseError } from './errors.js'
import { holdFile, type HeldFileOptions } from './sqlite-file.js'
import { sqliteReaders } from './sqlite-readers.js'
import { statementCache } from './statements.js'
import type { Store } from './store.js'

export interface SqliteStore<DB> extends Pick<Store<DB>, 'db' | 'stream' | 'readers'> {
  /** The rows a select reads, at once while kysely holds no connection (direct-reads.ts). */
  read: Read
  /** Counts the times the file was reopened (see sqlite-file.ts); 0 for `:memory:`. */
  generation: () => number
}

export interface SqliteOptions extends StoreOptions, Pick<HeldFileOptions, 'inspect'> {
  /** Whole lists streaming at once, each on a reader of its own. */
  maxReaders?: number
  /** Creates the file (and its directory) when the path names none (default true); false refuses it (MissingDatabaseError). */
  create?: boolean
}

/**
 * Opens (creating if needed and allowed) the SQLite database at `path`; `:memory:` for a private one. Whole
 * lists stream on read-only connections of their own (sqlite-readers.ts); a private in-memory
 * database has no file another connection could open, so its streams stay on its one connection.
 * A file is held to its path (sqlite-file.ts): while the path names no usable file, every query fails
 * as unavailable.
 */
export function openSqlite<DB> (path: string, options: SqliteOptions = {}): SqliteStore<DB> {
  const log = queryLogger(options)
  if (path === ':memory:') {
    const connection = connect(path)
    const statements = statementCache()
    const database = { prepare: (sql: string) => statements.prepare(connection, sql), close: () => { connection.close() } }
    const { db, read } = directSqlite<DB>(database, log, options.onQuery)
    return { db, read, stream: (query, chunkSize) => batchesOf(db, query, chunkSize), generation: () => 0, readers: () => NO_READERS }
  }
  if (options.create === false && !existsSync(path)) throw new MissingDatabaseError(path)
  mkdirSync(dirname(path), { recursive: true })
  // Created here when missing; from then on only ever reopened, never created again.
  new SQLite(path).close()
  const file = holdFile(path, () => connect(path, { fileMustExist: true }), {
    ...options,
    ofSnapshot: SNAPSHOT_STATEMENTS,
    configure: (connection) => { connection.pragma('journal_mode = WAL') }
  })
  const waitMs = options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS
  // A reader waits for a lock (another process writing in rollback mode) no longer than for a slot.
  const readers = sqliteReaders(() => connect(path, { readonly: true, fileMustExist: true }, waitMs), {
    onQuery: options.onQuery,
    maxReaders: options.maxReaders,
    waitMs,
    generation: file.generation
  })
  // The readers close first, so that the file's own connection, closing last, checkpoints its WAL.
  const database = { prepare: file.prepare, close: () => { readers.close(); file.close() } }
  const { db, read } = directSqlite<DB>(database, log, options.onQuery)
  return {
    db,
    read,
    // A stream reads the file the path names: the same check as every other query, first.
    stream: async function * stream<Row> (query: SelectQueryBuilder<any, any, Row>, chunkSize: number): AsyncGenerator<Row[]> {
      file.check()
      yield * readers.stream(compiledOnce(query), chunkSize, firstBatchOf(query, chunkSize))
    },
    generation: file.generation,
    readers: readers.use
  }
}

/** What reads nothing but the snapshot: the data's version, read once a turn. */
const SNAPSHOT_STATEMENTS: ReadonlySet<string> = new Set([SQLITE_DATA_VERSION_SQL])

/** An in-memory database streams on its one connection: no readers of its own. */
const NO_READERS = Object.freeze({ inUse: 0, waiting: 0 })

/** One connection to the file, waiting up to `busyMs` (5 s) for another connection's lock. */
function connect (path: string, options?: SQLite.Options, busyMs = 5000): SQLite.Database {
  const connection = new SQLite(path, options)
  connection.pragma(`busy_timeout = ${busyMs}`)
  return connection
}
