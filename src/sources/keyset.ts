// Deep pages by seek, not skip. OFFSET makes the store step over every row before a page, so page
// 20,000 of a million rows costs as much as reading 20,000 pages. A list ordered by one unique,
// indexed key can start at a key instead: for each version of the data and each query (filters
// and arguments included), the key at every `every`-th position is read once, in one pass that
// returns only those keys (the anchors), and a page starts at the anchor at or before its offset,
// skipping fewer than `every` rows. Offsets, page numbers and envelopes stay as they are. A query
// a caller sorted (sorted.ts) is ordered by the pair (sorted column, key): its anchors are pairs,
// and a page starts at or after its anchor's pair, a NULL below every value.
import { sql, type CompiledQuery, type ExpressionBuilder, type ExpressionWrapper, type Kysely, type RawBuilder } from 'kysely'
import { versionedMemo } from '../store/count-cache.js'
import type { Read } from '../store/direct-reads.js'
import type { QueryShape } from './shapes.js'
import { orderWords, type SortColumn } from './sorted.js'
import { template, type Slot, type Template } from './template.js'

export interface KeysetOptions {
  /**
   * The column the query orders by, alone and ascending (`id`, or `table.id` in a join), whose
   * values are unique and indexed: a primary key. Any other order would make the anchors wrong.
   */
  readonly column: string
  /** An anchor every this many rows (default 1000): no page skips more rows than this. */
  readonly every?: number
}

export const DEFAULT_ANCHOR_EVERY = 1000

/** Queries whose anchors are kept at once; the oldest goes first. */
const KEPT_ANCHORS = 64

/** Reads `limit` rows of a query from `offset`, in its order. */
export type Slicer = <Row>(shape: QueryShape<Row>, offset: number, limit: number) => Promise<Row[]>

/** A slicer that seeks from anchors kept per `version` of the data (the store's, read on every deep page); its pages read by `read`. */
export function keysetSlicer (db: Kysely<any>, read: Read, options: KeysetOptions, version: () => Promise<string>): Slicer {
  const every = options.every ?? DEFAULT_ANCHOR_EVERY
  if (!Number.isSafeInteger(every) || every < 1) throw new RangeError(`keyset.every must be a positive integer; got ${every}.`)
  const column = sql.ref(options.column)
  const anchors = versionedMemo<Anchor[]>({ version, maxEntries: KEPT_ANCHORS })
  // Each form's seeks compiled once, and forgotten with its query: from a key, a key and a value, a key and a NULL.
  const seeks = new WeakMap<object, Map<Start, Template<any>>>()
  const seekOf = <Row>(shape: QueryShape<Row>, start: Start): Template<Row> => {
    const compiled = seeks.get(shape.query) ?? new Map<Start, Template<any>>()
    seeks.set(shape.query, compiled)
    let seek = compiled.get(start)
    if (seek === undefined) {
      seek = seekTemplate(shape, column, start)
      compiled.set(start, seek)
    }
    return seek
  }
  return async (shape, offset, limit) => {
    const index = Math.floor(offset / every)
    if (index === 0) return await read(shape.page(limit, offset))
    const kept = await anchors.get(shape.key, async () => await read(shape.bind(anchorsOf(db, shape, column, every))))
    // Past the last anchor there are no rows to seek to; OFFSET says so as well as anything.
    if (index >= kept.length) return await read(shape.page(limit, offset))
    const { key, value } = kept[index]
    const skip = offset - index * every
    if (shape.sorted === undefined) return await read(shape.bind(seekOf(shape, 'key')(key, limit, skip)))
    if (value === null) return await read(shape.bind(seekOf(shape, 'null')(key, limit, skip)))
    return await read(shape.bind(seekOf(shape, 'value')(value, key, limit, skip)))
  }
}

/** Where a page starts: at the key at an anchor's position, and at its sorted column's value when the query is sorted. */
interface Anchor {
  readonly key: unknown
  readonly value?: unknown
}

/** What a seek starts from: a key alone (unsorted), a sorted value and a key, or a NULL and a key. */
type Start = 'key' | 'value' | 'null'

/** The statement reading the anchors at positions 0, every, 2 × every, …: numbered in one pass, only those returned. */
function anchorsOf (db: Kysely<any>, shape: QueryShape<unknown>, column: ReturnType<typeof sql.ref>, every: number): CompiledQuery<Anchor> {
  const { sorted } = shape
  const order = sorted === undefined ? sql`${column}` : sql`${sql.ref(sorted.column)} ${orderWords(sorted.direction)}, ${column}`
  const values = sorted === undefined ? [] : [sql.ref(sorted.column).as('value')]
  const numbered = shape.query.clearSelect().clearOrderBy().select([column.as('key'), ...values, sql<number>`row_number() over (order by ${order})`.as('position')])
  const picked = db.selectFrom(numbered.as('numbered')).select(sorted === undefined ? ['key'] : ['key', 'value'])
  return picked.where(sql`(${sql.ref('position')} - 1) % ${sql.lit(every)}`, '=', 0).orderBy('position').compile() as CompiledQuery<Anchor>
}

/** The shape's rows from an anchor on, `limit` of them after skipping `offset`: the slots are the start's values, then (limit, offset). */
function seekTemplate<Row> (shape: QueryShape<Row>, column: ReturnType<typeof sql.ref>, start: Start): Template<Row> {
  const { sorted } = shape
  if (sorted === undefined) return template(3, (key, limit, offset) => shape.query.where(column, '>=', key).limit(limit).offset(offset))
  if (start === 'null') return template(3, (key, limit, offset) => shape.query.where((eb) => fromNull(eb, sorted, column, key)).limit(limit).offset(offset))
  return template(4, (value, key, limit, offset) => shape.query.where((eb) => fromValue(eb, sorted, column, value, key)).limit(limit).offset(offset))
}

type Condition = ExpressionWrapper<any, any, any>

/**
 * At or after (value, key), value not NULL. Ascending, the NULLs came before; descending, they all
 * follow. The bound on the sorted column alone lets an index on (column, key) start at the value.
 */
function fromValue (eb: ExpressionBuilder<any, any>, { column, direction }: SortColumn, key: RawBuilder<unknown>, value: Slot, at: Slot): Condition {
  const by = sql.ref(column)
  const [reached, passed] = direction === 'asc' ? ['>=', '>'] as const : ['<=', '<'] as const
  const within = eb.and([eb(by, reached, value), eb.or([eb(by, passed, value), eb(key, '>=', at)])])
  return direction === 'asc' ? within : eb.or([within, eb(by, 'is', null)])
}

/** At or after (NULL, key): ascending, the NULLs from the key on and every value after them; descending, the last NULLs. */
function fromNull (eb: ExpressionBuilder<any, any>, { column, direction }: SortColumn, key: RawBuilder<unknown>, at: Slot): Condition {
  const by = sql.ref(column)
  const nulls = eb.and([eb(by, 'is', null), eb(key, '>=', at)])
  return direction === 'asc' ? eb.or([nulls, eb(by, 'is not', null)]) : nulls
}
