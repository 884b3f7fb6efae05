// Prepared statements kept for the next query with the same SQL. kysely asks a SQLite connection to
// prepare every statement it runs, and SQLite's prepare (parse, plan) costs about as much as running
// a page's query; a gateway sends the same few statements over and over.
import type SQLite from 'better-sqlite3'

/** More distinct statements than this, and the kept ones are dropped to start again: a bound, not a policy. */
export const KEPT_STATEMENTS = 256

export interface StatementCache {
  /** `connection`'s statement for `sql`: the one kept, unless it is busy iterating a stream. */
  prepare: (connection: SQLite.Database, sql: string) => SQLite.Statement
}

export function statementCache (kept: number = KEPT_STATEMENTS): StatementCache {
  // Per connection: a file held to its path is replaced by a new connection, whose statements are its own.
  const byConnection = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>()
  return {
    prepare: (connection, sql) => {
      let statements = byConnection.get(connection)
      if (statements === undefined) {
        statements = new Map()
        byConnection.set(connection, statements)
      }
      const statement = statements.get(sql)
      // A statement iterating (a stream on this connection) cannot run another query meanwhile.
      if (statement !== undefined && !statement.busy) return statement
      if (statements.size >= kept) statements.clear()
      const prepared = connection.prepare(sql)
      statements.set(sql, prepared)
      return prepared
    }
  }
}
