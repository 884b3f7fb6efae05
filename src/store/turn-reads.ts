// The reads of one turn of the event loop on a SQLite file's connection, in one read transaction.
// A statement run outside a transaction runs in one of its own, and on a file in WAL mode that
// costs three system calls to take the file's read lock and give it back again (about 7 µs on the
// machine of docs/performance.md), more than a small statement's own work. A request from scratch
// reads the data's version, its page and the page's names' schema check (rows.ts), and the count
// when it is not remembered: three or four locks. In one transaction, opened by the turn's first
// read and committed when the turn ends, they take one, and every request read in the same turn
// shares it.
//
// They also read one snapshot: a commit by another process between the version and the page can
// no longer leave the page's rows named by a version they do not have.
//
// Only a statement that reads and writes nothing joins the turn's transaction. Anything else ends it
// first: a write (one with RETURNING too) is committed as it always was, alone or in kysely's own
// transaction, and a stream, which may outlast the turn, holds no lock beyond its own.
//
// A statement of the snapshot (the data's version, data-version.ts) answers the same for every run
// in one transaction: its rows depend on nothing but the snapshot and this connection's own writes,
// and a write ends the transaction. So it runs once per turn's transaction, and every request of the
// turn is given those rows: a request from scratch then costs one statement fewer (two fewer where
// its answers are kept, which reads the version again to name them).
import type SQLite from 'better-sqlite3'
import type { KeptStatement } from './statements.js'

/**
 * `kept`, run as the turn's reads are: `prepared` is the statement it runs, asked what it is;
 * `ofSnapshot`, it reads nothing but the snapshot (and takes no parameters), and runs once per transaction of the turn.
 */
export type TurnReads = (kept: KeptStatement, prepared: SQLite.Statement, ofSnapshot?: boolean) => KeptStatement

/** The turn's read transaction on `connection`. */
export function turnReads (connection: SQLite.Database): TurnReads {
  let begin: SQLite.Statement | undefined
  let commit: SQLite.Statement | undefined
  /** The turn's transaction is open, and whether its turn has ended (its commit failed then). */
  let open = false
  let ended = false
  /** Counts the turn's transactions: rows of the snapshot are kept with the one they were read in. */
  let transaction = 0

  /** Commits the turn's transaction, if one is open; a failure is thrown, and the transaction stays to be ended again. */
  function end (): void {
    if (!open) return
    // A store closed with the transaction open rolled it back as it closed.
    if (connection.open) (commit ??= connection.prepare('commit')).run()
    open = false
  }

  function endOfTurn (): void {
    ended = true
    try {
      end()
    } catch {
      // Still open: the connection's next statement ends it before anything else, and meets the error.
    }
  }

  /** Reads from here on share the turn's transaction: opened now, unless one is (kysely's own, or this turn's). */
  function read (): void {
    if (open && !ended) return
    // A transaction left open by a turn whose commit failed is ended first (its error is thrown).
    end()
    if (connection.inTransaction) return
    (begin ??= connection.prepare('begin')).run()
    transaction++
    open = true
    ended = false
    setImmediate(endOfTurn)
  }

  /** A statement of the snapshot's rows: read once in each of the turn's transactions, and kept with it. */
  function once (kept: KeptStatement): KeptStatement['all'] {
    let rows: unknown[] = []
    let readIn = 0
    return (parameters) => {
      read()
      // The turn's own transaction (read() leaves kysely's or a caller's as it is), and nothing to bind.
      const turns = open && parameters.length === 0
      if (turns && readIn === transaction) return rows
      const fresh = kept.all(parameters)
      if (turns) {
        rows = Object.freeze(fresh) as unknown[]
        readIn = transaction
      }
      return fresh
    }
  }

  return (kept, prepared, ofSnapshot = false) => {
    const reads = prepared.reader && prepared.readonly
    return {
      reader: kept.reader,
      get busy () { return kept.busy },
      all: reads && ofSnapshot
        ? once(kept)
        : (parameters) => {
            if (reads) read()
            else end()
            return kept.all(parameters)
          },
      iterate: (parameters) => {
        end()
        return kept.iterate(parameters)
      },
      run: (parameters) => {
        end()
        return kept.run(parameters)
      }
    }
  }
}
