// A list source's query for one set of arguments and one form of conditions, built and compiled
// once. Every request for a page would otherwise build the query, apply its filters and compile it
// again, only to send the store the SQL it sent last time; most requests of a mount share a handful
// of arguments (often none at all), so their shapes are kept, a bounded number of them. A
// condition's value is not part of the form: it goes in the query as a marker, and each call binds
// its own values in the markers' places, so a filter sent with a new value (an agent walking from a
// new instant, a caller's own rows) runs the statement compiled for the last one.
import type { CompiledQuery, SelectQueryBuilder } from 'kysely'
import { compiledOnce } from '../store/compiled.js'
import { valueKey } from '../value-key.js'
import type { SortColumn } from './sorted.js'
import type { Condition, Sort } from './source.js'
import { bound, template, type Template } from './template.js'

/** A select of any tables and columns, whose rows are `Row`. */
export type AnyQuery<Row> = SelectQueryBuilder<any, any, Row>

/** More distinct arguments than this, and the kept shapes are dropped to start again: a bound, not a policy. */
export const KEPT_SHAPES = 256

/** One query as a call runs it. */
export interface QueryShape<Row> {
  /** The query, a marker where each of the call's values goes: the same builder for every call of its form. */
  readonly query: AnyQuery<Row>
  /** Its SQL and the call's values: what names it where totals and anchors are kept. */
  readonly key: string
  /** At most `limit` of its rows from `offset`, the call's values bound: (limit, offset). */
  readonly page: Template<Row>
  /** A statement built from `query` and compiled, with the call's values where their markers are. */
  readonly bind: <R>(compiled: CompiledQuery<R>) => CompiledQuery<R>
  /** The column a caller's sort orders it by first (sorted.ts), if any. */
  readonly sorted: SortColumn | undefined
}

/** A query built and compiled once for every call of one form; `markers` stand for the calls' values, in order. */
export interface QueryForm<Row> {
  readonly query: AnyQuery<Row>
  readonly statement: CompiledQuery<Row>
  readonly page: Template<Row>
  readonly markers: readonly object[]
  readonly sorted: SortColumn | undefined
}

export function queryForm<Row> (query: AnyQuery<Row>, markers: readonly object[], sorted?: SortColumn): QueryForm<Row> {
  // Compiled once for the key (the store's compiledOnce).
  return { query, statement: compiledOnce(query), page: template(2, (limit, offset) => query.limit(limit).offset(offset)), markers, sorted }
}

/** `form` with the `values` of a call (one for each of its markers), as the call runs it. */
export function boundShape<Row> (form: QueryForm<Row>, values: readonly unknown[]): QueryShape<Row> {
  const { query, statement, page, markers, sorted } = form
  if (markers.length === 0) return { query, sorted, key: valueKey(statement.sql, statement.parameters), page, bind: (compiled) => compiled }
  const bind = <R>(compiled: CompiledQuery<R>): CompiledQuery<R> => bound(compiled, markers, values)
  const named = bind(statement)
  // Written out, not spread: an object spread followed by a property of its own costs V8 about a microsecond.
  return { query, sorted, key: valueKey(named.sql, named.parameters), page: (limit, offset) => bind(page(limit, offset)), bind }
}

/**
 * `make`, called once for each distinct arguments, form of conditions (`form`: the conditions
 * themselves unless told) and sort, compared by value, while kept. `make` must build the same query
 * for the same arguments: a query that also depends on anything else (the clock, a setting read at
 * each call) is built once and kept as it was.
 */
export function perArguments<Args, Shape> (make: (args: Args, where: readonly Condition[], sort?: Sort) => Shape, kept: number = KEPT_SHAPES, form: (where: readonly Condition[]) => unknown = (where) => where): (args: Args, where?: readonly Condition[], sort?: Sort) => Shape {
  const shapes = new Map<string, Shape>()
  return (args, where = [], sort) => {
    const name = valueKey('', [args, form(where), sort ?? null])
    let shape = shapes.get(name)
    if (shape === undefined) {
      if (shapes.size >= kept) shapes.clear()
      shape = make(args, where, sort)
      shapes.set(name, shape)
    }
    return shape
  }
}
