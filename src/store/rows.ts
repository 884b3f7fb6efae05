// A SQLite statement's rows, read as arrays and named here. better-sqlite3 builds a row object on
// Node 20 by setting its columns one by one, each by a name it looks up again for every row; reading
// the values as an array and setting the same names from JavaScript builds the same object, of one
// shape for every row, in about two thirds of the time (a 50-entry ledger page: 51 to 37 µs).
//
// The names are the statement's as SQLite last compiled it, and SQLite compiles a statement again,
// as it runs it, when the schema has changed since (a column added, renamed or moved): names read
// before a run may not be that run's. So:
// - a stream reads its names once its first row is read: the iteration holds its snapshot, and the
//   names it reads then are that run's own;
// - a statement run whole (`all`) keeps the names it read, with the schema's version read before the
//   run they came from, and reads the version again after each run: unchanged, nothing was compiled
//   again in between, and the names are this run's. Changed, this run's names are read again.
// That check costs a statement (about 2 µs), so a statement runs whole as arrays only once one of its
// runs returned many rows (NAMES_FROM_ROWS); one that returns a row or two (a count, a record, the
// data's version) stays as better-sqlite3 reads it. Names that cannot be set as they are read (a name
// twice, `__proto__`) leave the statement to better-sqlite3 for good.
import type SQLite from 'better-sqlite3'
import { literal, sameStrings, writtenFunction } from '../written-code.js'
import type { KeptStatement } from './statements.js'

/** A run of a whole statement returning at least this many rows switches it to arrays. */
export const NAMES_FROM_ROWS = 16

type Values = readonly unknown[]
type Row = Record<string, unknown>

/** `statement` (one that reads rows) as kysely runs it, reading many rows as arrays; `schema` reads its connection's schema version. */
export function namedRows (statement: SQLite.Statement, schema: () => number): KeptStatement {
  /** Whole runs read arrays (once one returned many rows), unless the names cannot be set as read. */
  let arrays = false
  let settable = true
  /** The names of the whole runs, their row maker, and the schema version they were compiled at (undefined: read them again). */
  let names: readonly string[] = []
  let make: RowMaker | undefined
  let compiledAt: number | undefined
  /** The last stream's names and maker: a statement's streams share them while its columns stay. */
  let streamed: { names: readonly string[], make: RowMaker } | undefined

  function all (parameters: readonly unknown[]): unknown[] {
    if (!arrays) {
      const rows = statement.raw(false).all(parameters)
      arrays = settable && rows.length >= NAMES_FROM_ROWS
      return rows
    }
    const before = compiledAt === undefined ? schema() : undefined
    const rows = statement.raw(true).all(parameters) as Values[]
    // A version kept means names were read, and their maker made with them.
    if (before === undefined && schema() === compiledAt) return named(rows, make!)
    // First run as arrays, or the schema changed: this run's names, kept with the version read before
    // the run (or none, after a change: the next run reads them again, with the version before it).
    const read = columnNames(statement)
    compiledAt = before
    if (canSet(read)) {
      if (make === undefined || !sameStrings(read, names)) make = rowMaker(read)
      names = read
      return named(rows, make)
    }
    settable = arrays = false
    return statement.raw(false).all(parameters)
  }

  function iterate (parameters: readonly unknown[]): IterableIterator<unknown> {
    if (!settable) return statement.raw(false).iterate(parameters)
    let rows = statement.raw(true).iterate(parameters) as IterableIterator<unknown>
    let streamMake: RowMaker | undefined
    const iterator: IterableIterator<unknown> = {
      next: () => {
        const next = rows.next()
        // Not settable (found out below): the stream reads objects from then on.
        if (next.done === true || !settable) return next
        if (streamMake === undefined) {
          const streamNames = columnNames(statement)
          if (!canSet(streamNames)) {
            // Nothing was handed out yet: the stream starts again, read by better-sqlite3.
            rows.return!()
            settable = arrays = false
            rows = statement.raw(false).iterate(parameters)
            return rows.next()
          }
          // The last stream's maker while the names are the same: made once while they stay.
          if (streamed === undefined || !sameStrings(streamNames, streamed.names)) streamed = { names: streamNames, make: rowMaker(streamNames) }
          streamMake = streamed.make
        }
        return { done: false, value: streamMake(next.value as Values) }
      },
      return: (value?: unknown) => rows.return!(value),
      [Symbol.iterator]: () => iterator
    }
    return iterator
  }

  return {
    reader: true,
    get busy () { return statement.busy },
    all,
    iterate,
    run: (parameters) => statement.run(parameters)
  }
}

/** The columns' names of `statement` as SQLite compiled it last. */
function columnNames (statement: SQLite.Statement): string[] {
  return statement.columns().map((column) => column.name)
}

/** True when setting the names one by one makes one property each: no name twice, none that sets the prototype. */
function canSet (names: readonly string[]): boolean {
  return new Set(names).size === names.length && !names.includes('__proto__')
}

/** Each array of `rows` replaced by its row, in place. */
function named (rows: Values[], make: RowMaker): Row[] {
  const out = rows as unknown as Row[]
  for (let i = 0; i < rows.length; i++) out[i] = make(rows[i])
  return out
}

/** Makes the row of one array of values. */
type RowMaker = (values: Values) => Row

/**
 * A function returning `{ "<name 0>": values[0], ... }`: an object literal of the names, written
 * once per statement's names. Setting them one by one by name, each row's object passed through a
 * shape per column, at a store V8 cannot specialise (one site for every name and shape): about 360
 * instructions a value. The literal makes each row at once, of one shape. Each name is written by
 * `literal` (written-code.ts); canSet has kept out `__proto__`, which a literal would take for the
 * prototype, and a name twice.
 */
function rowMaker (names: readonly string[]): RowMaker {
  const fields = names.map((name, i) => `${literal(name)}: values[${i}]`)
  return writtenFunction<RowMaker>(['values'], `return { ${fields.join(', ')} }`)
}
