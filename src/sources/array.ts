// An in-memory list as a source: for fixtures, small static catalogues and tests. It applies every
// filter and every sort itself, comparing the stored values as JavaScript does.
import { meetsEvery, type Condition, type ListSource, type RecordSource, type Sort } from './source.js'

/** A list source over `rows` (or the rows `select` picks for the arguments), in array order. */
export function arraySource<Args, Row> (rows: readonly Row[] | ((args: Args) => readonly Row[])): ListSource<Args, Row> {
  const select = typeof rows === 'function' ? rows : () => rows
  const selected = (args: Args, where: readonly Condition[] = []): readonly Row[] => where.length === 0 ? select(args) : select(args).filter((row) => meetsEvery(row, where))
  return {
    canFilter: () => true,
    canSort: () => true,
    count: async (args, where) => selected(args, where).length,
    slice: async (args, offset, limit, where, sort) => sorted(selected(args, where), sort).slice(offset, offset + limit),
    stream: (args, where, _context, sort) => batched(sorted(selected(args, where), sort))
  }
}

/** A record source finding the first row `matches` accepts. */
export function arrayRecordSource<Args, Row> (rows: readonly Row[], matches: (row: Row, args: Args) => boolean): RecordSource<Args, Row> {
  return { one: async (args) => rows.find((row) => matches(row, args)) }
}

/**
 * `rows` ordered by `sort` (a stable sort: ties keep the array's order, the source's own), a null or
 * missing value below every other; unsorted, as they are.
 */
function sorted<Row> (rows: readonly Row[], sort: Sort | undefined): readonly Row[] {
  if (sort === undefined) return rows
  const { field, direction } = sort
  const sign = direction === 'asc' ? 1 : -1
  return rows.toSorted((a, b) => sign * compare((a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]))
}

function compare (a: unknown, b: unknown): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1
  if (b === null || b === undefined) return 1
  return (a as string | number) < (b as string | number) ? -1 : (a as string | number) > (b as string | number) ? 1 : 0
}

/** Rows per batch a plain list is written in. */
const BATCH = 1000

async function * batched<Row> (rows: readonly Row[]): AsyncIterable<readonly Row[]> {
  for (let start = 0; start < rows.length; start += BATCH) yield rows.slice(start, start + BATCH)
}
