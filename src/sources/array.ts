// An in-memory list as a source: for fixtures, small static catalogues and tests.
import type { ListSource, RecordSource } from './source.js'

/** A list source over `rows` (or the rows `select` picks for the arguments), in array order. */
export function arraySource<Args, Row> (rows: readonly Row[] | ((args: Args) => readonly Row[])): ListSource<Args, Row> {
  const select = typeof rows === 'function' ? rows : () => rows
  return {
    count: async (args) => select(args).length,
    slice: async (args, offset, limit) => select(args).slice(offset, offset + limit),
    stream: (args) => iterate(select(args))
  }
}

/** A record source finding the first row `matches` accepts. */
export function arrayRecordSource<Args, Row> (rows: readonly Row[], matches: (row: Row, args: Args) => boolean): RecordSource<Args, Row> {
  return { one: async (args) => rows.find((row) => matches(row, args)) }
}

async function * iterate<Row> (rows: readonly Row[]): AsyncIterable<Row> {
  yield * rows
}
