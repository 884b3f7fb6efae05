// Reads on a SQLite connection without kysely's driver in between. kysely runs every query through
// its executor, its connection provider, its runtime driver and the SQLite driver's mutex, about
// twenty promises a statement: a page from scratch made 83 promises, 42 of them for its two
// statements (the data's version and the page), where the route written for speed makes 12. But
// better-sqlite3 answers at once, so a read runs at once on the statement kysely would have run
// (the connection's kept one: statements.ts, turn-reads.ts), unless kysely holds the connection.
// Then a transaction of another request may be open on it, and a read run in its middle would see
// writes that may never be committed: the read waits for the connection through kysely, as before.
import { Kysely, SqliteDialect, SqliteDriver, type CompiledQuery, type DatabaseConnection, type Driver, type LogConfig, type SqliteDatabase } from 'kysely'

/** The rows a compiled select reads. */
export type Read = <Row>(query: CompiledQuery<Row>) => Promise<Row[]>

/** kysely's own way: through its executor and its driver. */
export function kyselyRead (db: Kysely<any>): Read {
  return async <Row>(query: CompiledQuery<Row>) => (await db.executeQuery(query)).rows
}

/** A kysely instance on `database`, and `read`, which runs a select directly while kysely holds no connection. */
export function directSqlite<DB> (database: SqliteDatabase, log: LogConfig | undefined, onQuery?: (sql: string) => void): { db: Kysely<DB>, read: Read } {
  /** Connections kysely asked for and has not given back: the one connection, held or waited for. */
  let held = 0
  // kysely's SQLite driver takes its connection by waiting for its mutex, and gives it back by
  // unlocking it: neither fails, so each counts without a catch.
  class CountingDriver extends SqliteDriver {
    override async acquireConnection (): Promise<DatabaseConnection> {
      held++
      return await super.acquireConnection()
    }

    override async releaseConnection (): Promise<void> {
      await super.releaseConnection()
      held--
    }
  }
  const config = { database }
  class CountingDialect extends SqliteDialect {
    override createDriver (): Driver {
      return new CountingDriver(config)
    }
  }
  const db = new Kysely<DB>({ dialect: new CountingDialect(config), log })
  const viaKysely = kyselyRead(db)
  return {
    db,
    read: async <Row>(query: CompiledQuery<Row>): Promise<Row[]> => {
      if (held > 0) return await viaKysely(query)
      const statement = database.prepare(query.sql)
      // Only a select is read here: anything else is kysely's to run.
      if (!statement.reader) return await viaKysely(query)
      onQuery?.(query.sql)
      return statement.all(query.parameters) as Row[]
    }
  }
}
