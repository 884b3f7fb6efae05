// A caller's sort as SQL: the query ordered by the sorted field's column first, then by its own
// order (its unique key breaks the ties), a NULL below every value on SQLite and PostgreSQL alike:
// first ascending, last descending. Only ORDER BY changes, so the rows, their count and its
// remembered total are the unsorted query's.
import { sql, type Expression, type OrderByItemNode } from 'kysely'
import type { AnyQuery } from './shapes.js'
import type { Sort } from './source.js'

/** The column a sort orders by (or `table.column`), and its direction. */
export interface SortColumn {
  readonly column: string
  readonly direction: Sort['direction']
}

/** `query` ordered by `sorted.column` first, its own ORDER BY kept after it as the tie-breaker. */
export function sortedQuery<Row> (query: AnyQuery<Row>, sorted: SortColumn): AnyQuery<Row> {
  const own = query.toOperationNode().orderBy?.items ?? []
  const first = query.clearOrderBy().orderBy(sql.ref(sorted.column), (item) => sorted.direction === 'asc' ? item.asc().nullsFirst() : item.desc().nullsLast())
  return own.reduce((ordered, item) => ordered.orderBy(asIs(item)), first)
}

/** The ORDER BY words of a sort: `asc nulls first` or `desc nulls last`. */
export function orderWords (direction: Sort['direction']): ReturnType<typeof sql.raw> {
  return sql.raw(direction === 'asc' ? 'asc nulls first' : 'desc nulls last')
}

/** An order item of the query, added again as it was (kysely takes an item node as one). */
function asIs (item: OrderByItemNode): Expression<unknown> {
  return { expressionType: undefined, toOperationNode: () => item }
}
