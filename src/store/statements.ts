// Prepared statements kept for the next query with the same SQL. kysely asks a SQLite connection to
// prepare every statement it runs, and SQLite's prepare (parse, plan) costs about as much as running
// a page's query; a gateway sends the same few statements over and over.
//
// A kept statement that reads rows names them itself (rows.ts says why and how); on a file's
// connection, the reads of a turn share one transaction (turn-reads.ts).
import type SQLite from 'better-sqlite3'
import type { SqliteStatement } from 'kysely'
import { namedRows } from './rows.js'
import { turnReads, type TurnReads } from './turn-reads.js'

/** More distinct statements than this, and the kept ones are dropped to start again: a bound, not a policy. */
export const KEPT_STATEMENTS = 256

/** A kept statement: what kysely runs, and whether it is iterating (a stream on its connection). */
export interface KeptStatement extends SqliteStatement {
  readonly busy: boolean
}

export interface StatementCache {
  /** `connection`'s statement for `sql`: the one kept, unless it is busy iterating a stream. */
  prepare: (connection: SQLite.Database, sql: string) => KeptStatement
}

export interface StatementCacheOptions {
  /** How many distinct statements are kept (KEPT_STATEMENTS). */
  kept?: number
  /** The reads of a turn share one transaction (turn-reads.ts): a file's connection, where that saves its locks. */
  turnReads?: boolean
  /** Statements (by their SQL, without parameters) that read nothing but the snapshot: with turnReads, run once per turn's transaction. */
  ofSnapshot?: ReadonlySet<string>
}

export function statementCache (options: StatementCacheOptions = {}): StatementCache {
  const kept = options.kept ?? KEPT_STATEMENTS
  // Per connection: a file held to its path is replaced by a new connection, whose statements are its own.
  const byConnection = new WeakMap<SQLite.Database, { statements: Map<string, KeptStatement>, schema: () => number, turn: TurnReads | undefined }>()
  return {
    prepare: (connection, sql) => {
      let held = byConnection.get(connection)
      if (held === undefined) {
        // Prepared when first asked for (rows.ts asks it of statements run whole as arrays).
        let version: SQLite.Statement | undefined
        held = {
          statements: new Map(),
          schema: () => (version ??= connection.prepare('pragma schema_version').pluck()).get() as number,
          turn: options.turnReads === true ? turnReads(connection) : undefined
        }
        byConnection.set(connection, held)
      }
      const { statements } = held
      const statement = statements.get(sql)
      // A statement iterating (a stream on this connection) cannot run another query meanwhile.
      if (statement !== undefined && !statement.busy) return statement
      if (statements.size >= kept) statements.clear()
      const prepared = connection.prepare(sql)
      const named = prepared.reader ? namedRows(prepared, held.schema) : prepared
      const keeping = held.turn === undefined ? named : held.turn(named, prepared, options.ofSnapshot?.has(sql))
      statements.set(sql, keeping)
      return keeping
    }
  }
}
