// A list source's query for one set of arguments and conditions, built and compiled once. Every
// request for a page would otherwise build the query, apply its filters and compile it again, only
// to send the store the SQL it sent last time; most requests of a mount share a handful of
// arguments (often none at all), so their shapes are kept, a bounded number of them.
import type { SelectQueryBuilder } from 'kysely'
import { compiledOnce } from '../store/compiled.js'
import { valueKey } from '../value-key.js'
import type { SortColumn } from './sorted.js'
import type { Condition, Sort } from './source.js'
import { template, type Template } from './template.js'

/** A select of any tables and columns, whose rows are `Row`. */
export type AnyQuery<Row> = SelectQueryBuilder<any, any, Row>

/** More distinct arguments than this, and the kept shapes are dropped to start again: a bound, not a policy. */
export const KEPT_SHAPES = 256

/** One query, ready to run. */
export interface QueryShape<Row> {
  readonly query: AnyQuery<Row>
  /** Its SQL and parameters: what names it where totals and anchors are kept. */
  readonly key: string
  /** At most `limit` of its rows from `offset`: (limit, offset). */
  readonly page: Template<Row>
  /** The column a caller's sort orders it by first (sorted.ts), if any. */
  readonly sorted?: SortColumn
}

export function queryShape<Row> (query: AnyQuery<Row>, sorted?: SortColumn): QueryShape<Row> {
  // Compiled once for the key and for every stream of it (the store's compiledOnce).
  const { sql, parameters } = compiledOnce(query)
  return { query, key: valueKey(sql, parameters), page: template(2, (limit, offset) => query.limit(limit).offset(offset)), ...(sorted === undefined ? {} : { sorted }) }
}

/**
 * `make`, called once for each distinct arguments, conditions and sort (compared by value) while kept.
 * `make` must build the same query for the same arguments: a query that also depends on anything
 * else (the clock, a setting read at each call) is built once and kept as it was.
 */
export function perArguments<Args, Shape> (make: (args: Args, where: readonly Condition[], sort?: Sort) => Shape, kept: number = KEPT_SHAPES): (args: Args, where?: readonly Condition[], sort?: Sort) => Shape {
  const shapes = new Map<string, Shape>()
  return (args, where = [], sort) => {
    const name = valueKey('', [args, where, sort ?? null])
    let shape = shapes.get(name)
    if (shape === undefined) {
      if (shapes.size >= kept) shapes.clear()
      shape = make(args, where, sort)
      shapes.set(name, shape)
    }
    return shape
  }
}
