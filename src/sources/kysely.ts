// A kysely query as a source: COUNT over it, then LIMIT/OFFSET for a page, and the store's streamed
// read for the whole list. The query must order by a stable key, so pages never overlap or skip.
// A mount's filters become WHERE clauses of the query, so the count, each page and the stream are
// of the filtered rows, and a remembered total is keyed by the filtered query's SQL and values. A
// caller's sort only orders by the field's column first (sorted.ts): the count is the unsorted one.
import { hash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { uncachedCounts, type CountCache } from '../store/count-cache.js'
import { kyselyRead, type Read } from '../store/direct-reads.js'
import type { Store } from '../store/store.js'
import { valueKey } from '../value-key.js'
import { keysetSlicer, type KeysetOptions, type Slicer } from './keyset.js'
import { boundShape, KEPT_SHAPES, perArguments, queryForm, type AnyQuery } from './shapes.js'
import { bound, slotted } from './template.js'
import { sortedQuery, type SortColumn } from './sorted.js'
import type { Condition, ListSource, RecordSource, Sort } from './source.js'

export interface KyselySourceOptions<Row, Out> {
  /** Turns a stored row into a presented one (e.g. parses JSON columns). */
  decode?: (row: Row) => Out
  /** Rows fetched per round trip while streaming (default 1000). */
  chunkSize?: number
  /** Where totals are remembered while the data is unchanged (default: the store's); `false` counts on every request. */
  countCache?: CountCache | false
  /**
   * The column (or `table.column`) each filtered or sorted field is read from, where it is not the field's
   * name. A date-time compared by a range must be stored as UTC text to the second
   * (`2026-01-31T12:05:09Z`) or as a timestamp, so that order is the instants' order.
   */
  columns?: Readonly<Record<string, string>>
  /**
   * Deep pages by seek: the query's one ascending, unique, indexed order key, and how far apart its
   * anchors are kept (keyset.ts); a sorted page seeks by the pair (sorted column, key). Without it, a
   * page is read with OFFSET alone.
   */
  keyset?: KeysetOptions
}

export function kyselySource<Args, Row, Out = Row> (
  store: Pick<Store<any>, 'db' | 'stream' | 'counts'> & Partial<Pick<Store<any>, 'versionTag' | 'dataVersion' | 'read'>>,
  query: (args: Args) => AnyQuery<Row>,
  options: KyselySourceOptions<Row, Out> = {}
): ListSource<Args, Out> {
  const { db } = store
  const decode = options.decode ?? ((row: Row) => row as unknown as Out)
  const chunkSize = options.chunkSize ?? 1000
  const cache = options.countCache === false ? uncachedCounts : options.countCache ?? store.counts
  const { versionTag } = store
  // The store's own read (at once on SQLite), else kysely's.
  const read = store.read ?? kyselyRead(db)
  const slice = slicerOf(db, read, store, options.keyset)
  const columns = options.columns ?? {}
  /** The arguments' query with the conditions (each value where `valueOf` puts it), ordered by the sort's column first. */
  const built = (args: Args, where: readonly Condition[], sort: Sort | undefined, valueOf: (condition: Condition) => unknown): { query: AnyQuery<Row>, sorted?: SortColumn } => {
    const filtered = where.reduce((selected, condition) => applied(selected, condition, columns, () => valueOf(condition)), query(args))
    if (sort === undefined) return { query: filtered }
    const sorted = { column: columns[sort.field] ?? sort.field, direction: sort.direction }
    return { query: sortedQuery(filtered, sorted), sorted }
  }
  // Each distinct arguments' query, its COUNT and its page built and compiled once for every form of
  // conditions (shapes.ts), and bound to each distinct values of them once.
  const forms = perArguments((args: Args, where: readonly Condition[], sort?: Sort) => {
    const markers: object[] = []
    const { query: selected, sorted } = built(args, where, sort, () => {
      const { slot, marker } = slotted()
      markers.push(marker)
      return slot
    })
    const form = queryForm(selected, markers, sorted)
    // COUNT over the query itself, so filters, joins and DISTINCT count as they select.
    return { form, counted: db.selectFrom(selected.clearOrderBy().as('counted')).select(sql<string | number>`count(*)`.as('count')).compile() }
  }, KEPT_SHAPES, formsOf)
  const shapes = perArguments((args: Args, where: readonly Condition[], sort?: Sort) => {
    const { form, counted } = forms(args, where, sort)
    const values = valuesOf(where)
    const counting = bound(counted, form.markers, values)
    return { shape: boundShape(form, values), counted: counting, countedKey: valueKey(counting.sql, counting.parameters) }
  })
  // A whole list streams from a builder of its own values: the store's streams compile builders.
  const streamed = perArguments((args: Args, where: readonly Condition[], sort?: Sort) => built(args, where, sort, (condition) => condition.value).query)
  return {
    canFilter: () => true,
    canSort: () => true,
    count: async (args, where) => {
      const { counted, countedKey } = shapes(args, where)
      return await cache.count(countedKey, async () => Number((await read(counted))[0].count))
    },
    slice: async (args, offset, limit, where, sort) => (await slice(shapes(args, where, sort).shape, offset, limit)).map(decode),
    stream: (args, where, context, sort) => decoded(store.stream(streamed(args, where, sort), chunkSize, context?.client), options.decode),
    // The state of the data, and the statement that reads it: the same two always stream the same rows, in the same order.
    ...(versionTag === undefined
      ? {}
      : { version: async (args: Args, where?: readonly Condition[], sort?: Sort) => hash('sha256', `${await versionTag()}\n${shapes(args, where, sort).shape.key}`, 'base64url') })
  }
}

/** Pages by OFFSET, or by seek from anchors kept per version of the store's data. */
function slicerOf (db: Kysely<any>, read: Read, store: Partial<Pick<Store<any>, 'dataVersion'>>, keyset: KeysetOptions | undefined): Slicer {
  if (keyset === undefined) return (shape, offset, limit) => read(shape.page(limit, offset))
  if (store.dataVersion === undefined) throw new TypeError('keyset needs a store with a version of its data: its anchors are kept per version.')
  return keysetSlicer(db, read, keyset, store.dataVersion)
}

const COMPARISONS = { equals: '=', min: '>=', max: '<=' } as const

/**
 * `query` with one condition as a WHERE clause, its value where `valueOf` puts it (a marker, or the
 * value itself). A boolean is SQL's own literal: SQLite binds no booleans, and reads TRUE and FALSE
 * as 1 and 0. A prefix compares the column's first characters (`substr`, the same in SQLite and
 * PostgreSQL), so letter case counts in both, and `%` or `_` in the value are just characters.
 */
function applied<Row> (query: AnyQuery<Row>, { field, op, value }: Condition, columns: Readonly<Record<string, string>>, valueOf: () => unknown): AnyQuery<Row> {
  const column = sql.ref(columns[field] ?? field)
  if (typeof value === 'boolean') return query.where(column, '=', sql.lit(value))
  if (op !== 'prefix') return query.where(column, COMPARISONS[op], valueOf())
  return query.where(sql`substr(${column}, 1, ${sql.lit([...(value as string)].length)})`, '=', valueOf())
}

/** What of each condition its query's SQL holds: the field and the comparison, a boolean (a literal) and a prefix's length. */
function formsOf (where: readonly Condition[]): unknown[] {
  return where.map(({ field, op, value }) => typeof value === 'boolean' ? [field, op, value] : op === 'prefix' ? [field, op, [...(value as string)].length] : [field, op])
}

/** The values a call binds, in the order applied() asked for their markers: every condition's but a boolean's. */
function valuesOf (where: readonly Condition[]): unknown[] {
  const values: unknown[] = []
  for (const { value } of where) if (typeof value !== 'boolean') values.push(value)
  return values
}

export function kyselyRecordSource<Args, Row, Out = Row> (
  query: (args: Args) => AnyQuery<Row>,
  options: Pick<KyselySourceOptions<Row, Out>, 'decode'> = {}
): RecordSource<Args, Out> {
  const decode = options.decode ?? ((row: Row) => row as unknown as Out)
  return {
    one: async (args) => {
      const row = await query(args).limit(1).executeTakeFirst()
      return row === undefined ? undefined : decode(row)
    }
  }
}

/** The store's batches, each row decoded where the source decodes (undecoded batches pass as they came). */
function decoded<Row, Out> (batches: AsyncIterable<Row[]>, decode: ((row: Row) => Out) | undefined): AsyncIterable<Out[]> {
  if (decode === undefined) return batches as unknown as AsyncIterable<Out[]>
  return (async function * () { for await (const batch of batches) yield batch.map(decode) })()
}
