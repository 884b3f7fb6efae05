// A whole list on SQLite, its first batch read at once. better-sqlite3 hands a stream's rows over
// one native call each, and reads a statement run whole in one: 1,240 ledger entries cost 960 µs
// a row at a time and 680 µs at once. Most lists a plain client asks for are no longer than a batch,
// so a stream reads its first batch whole (one row more, to learn whether there is a rest), and
// only a longer list goes on a row at a time from where the batch ended, in the same snapshot.
import type { CompiledQuery, SelectQueryBuilder } from 'kysely'

/** A list read as its first batch and the rest after it: both the list's own statement, bounded. */
export interface FirstBatch<Row> {
  /** The first `chunkSize + 1` rows: more than `chunkSize`, and there is a rest. */
  readonly first: CompiledQuery<Row>
  /** Every row after the first `chunkSize`. */
  readonly rest: CompiledQuery<Row>
}

const compiled = new WeakMap<object, { readonly chunkSize: number, readonly split: FirstBatch<any> | undefined }>()

/**
 * `query` split after its first `chunkSize` rows, compiled once for as long as the builder lives;
 * undefined for a query that bounds its own rows (a LIMIT or an OFFSET of its own), which is read a
 * row at a time as it is.
 */
export function firstBatchOf<Row> (query: SelectQueryBuilder<any, any, Row>, chunkSize: number): FirstBatch<Row> | undefined {
  const known = compiled.get(query)
  if (known !== undefined && known.chunkSize === chunkSize) return known.split
  const node = query.toOperationNode()
  // SQLite reads a negative LIMIT as none: the rest is every row after the first batch.
  const split = node.limit !== undefined || node.offset !== undefined ? undefined : { first: query.limit(chunkSize + 1).compile(), rest: query.limit(-1).offset(chunkSize).compile() }
  compiled.set(query, { chunkSize, split })
  return split
}
