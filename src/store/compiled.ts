// A query builder's SQL, compiled once. kysely's builders are immutable, so one builder always
// compiles to the same statement; a source hands the store the same builder for the same arguments
// (src/sources/shapes.ts), and compiling it again for every whole list streamed cost more than
// reading a hundred of its rows.
import type { CompiledQuery, SelectQueryBuilder } from 'kysely'

const compiled = new WeakMap<object, CompiledQuery<any>>()

/** `query.compile()`, remembered for as long as the builder lives. */
export function compiledOnce<Row> (query: SelectQueryBuilder<any, any, Row>): CompiledQuery<Row> {
  let statement = compiled.get(query)
  if (statement === undefined) {
    statement = query.compile()
    compiled.set(query, statement)
  }
  return statement
}
