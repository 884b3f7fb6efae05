// The SQLite file the store serves is the one its path names, now. An open connection keeps the
// file it opened whatever becomes of the path: moved away, deleted, made unreadable or replaced,
// the old file would go on answering, a database nobody configured any more. So the path is looked
// at again (a stat and an access check) before the first statement of each turn of the event loop:
// a request's statements, and the requests read in the same turn, share one look (taken before
// every statement, the looks cost about a tenth of an agent page read from scratch). A change made
// while a turn runs is seen from the next one, as one made during a statement is seen by the next:
// - gone, not a file, or not readable and writable by this process: the store is unavailable (a
//   503 the client may retry) until the file is back;
// - another file than the one open (a backup restored by `mv`): the connection is reopened on it,
//   if it holds the same tables; a file with other tables (or none) is unavailable too.
// Each change is told once to `onNotice`, not once per statement.
import { accessSync, constants, statSync } from 'node:fs'
import type SQLite from 'better-sqlite3'
import { statementCache } from './statements.js'
import type { SqliteDatabase, SqliteStatement } from 'kysely'
import { StoreUnavailableError } from './errors.js'
import type { StoreOptions } from './options.js'

/** What the path names: a file by its device and inode, or why it cannot be served. */
export type FileState = { readonly identity: string } | { readonly refused: string }

/** Looks at `path` as this process would open it (synchronous: kysely prepares synchronously). */
export function inspectFile (path: string): FileState {
  const stats = statSync(path, { throwIfNoEntry: false })
  if (stats === undefined) return { refused: 'is gone' }
  if (!stats.isFile()) return { refused: 'is not a file' }
  try {
    accessSync(path, constants.R_OK | constants.W_OK)
  /* c8 ignore next 3 -- root (as CI runs) may use any file; test/src/store/sqlite-file.test.ts takes this branch when not root */
  } catch {
    return { refused: 'is not readable and writable by this process' }
  }
  return { identity: `${stats.dev}:${stats.ino}` }
}

export interface HeldFile extends SqliteDatabase {
  /** Throws a StoreUnavailableError unless the path names a file the connection serves (reopened if need be); looks every time. */
  check: () => void
  /** Counts the reopenings: the data version includes it, as a new connection's counters start again. */
  readonly generation: () => number
}

export interface HeldFileOptions extends Pick<StoreOptions, 'onNotice'> {
  /** Readies a connection once its file is accepted (WAL); a file refused is never written to. */
  configure?: (connection: SQLite.Database) => void
  /** How the path is looked at (tests stand in a refusal root cannot meet, such as no permission). */
  inspect?: (path: string) => FileState
  /** Statements that read nothing but the snapshot, run once per turn (statements.ts). */
  ofSnapshot?: ReadonlySet<string>
}

/** A connection held to the file `path` names; `open` opens whatever file that is, and fails if there is none. */
export function holdFile (path: string, open: () => SQLite.Database, options: HeldFileOptions = {}): HeldFile {
  const inspect = options.inspect ?? inspectFile
  const configure = options.configure ?? (() => {})
  let connection = open()
  configure(connection)
  const statements = statementCache({ turnReads: true, ofSnapshot: options.ofSnapshot })
  /**
   * Connections to files the path no longer names, closed only with the store: SQLite, closing a
   * file's last connection, deletes its WAL by name, and the name is now the new file's WAL.
   */
  const retired: SQLite.Database[] = []
  const first = inspect(path)
  // Opened a moment ago, so it is there: only a race with a move can make this fail, and a start that fails is right then.
  if (!('identity' in first)) {
    connection.close()
    throw new StoreUnavailableError(`The SQLite file ${path} ${first.refused}.`)
  }
  let identity = first.identity
  let generation = 0
  /** What was last told, so each state is told once. */
  let told = ''

  function tell (state: string, message: string): void {
    if (told === state) return
    told = state
    options.onNotice?.(message, { path })
  }

  function refuse (state: string, why: string): never {
    tell(state, `The SQLite file ${path} ${why}: data routes and readiness answer 503 until it is back`)
    throw new StoreUnavailableError(`The SQLite file ${path} ${why}.`)
  }

  function reopenOrRefuse (state: string): SQLite.Database {
    try {
      return open()
    } catch {
      refuse(state, 'is another file, which cannot be opened')
    }
  }

  function check (): void {
    const state = inspect(path)
    if ('refused' in state) refuse(state.refused, state.refused)
    if (state.identity === identity) {
      if (told !== '') tell('', `The SQLite file ${path} is back: serving it again`)
      return
    }
    const next = reopenOrRefuse(state.identity)
    if (tables(next) !== tables(connection)) {
      next.close()
      refuse(state.identity, 'is another file, not a database with the tables of the one opened')
    }
    configure(next)
    retired.push(connection)
    connection = next
    identity = state.identity
    generation++
    // Told every time: each swap is news, even right after another.
    told = ''
    options.onNotice?.(`The SQLite file ${path} is another file than the one opened, with the same tables: serving it from now on`, { path })
  }

  /** Whether the path was found serving in this turn of the event loop; forgotten when the turn ends. */
  let lookedThisTurn = false
  const nextTurn = (): void => { lookedThisTurn = false }

  /** `check`, once per turn: a refusal is not remembered, so every statement meets it until the file is back. */
  function checkThisTurn (): void {
    if (lookedThisTurn) return
    check()
    lookedThisTurn = true
    setImmediate(nextTurn)
  }

  return {
    check,
    generation: () => generation,
    prepare: (sql: string): SqliteStatement => {
      checkThisTurn()
      return statements.prepare(connection, sql)
    },
    // The file the path names first, so that its WAL is checkpointed and removed by its own connection.
    close: () => { for (const each of [connection, ...retired]) each.close() }
  }
}

/** The tables' (and indexes') definitions: two files holding the same ones can stand in for each other. */
function tables (connection: SQLite.Database): string {
  return JSON.stringify(connection.prepare('select type, name, sql from sqlite_schema order by type, name').all())
}
