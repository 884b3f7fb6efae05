// Deep pages by seek, not skip. OFFSET makes the store step over every row before a page, so page
// 20,000 of a million rows costs as much as reading 20,000 pages. A list ordered by one unique,
// indexed key can start at a key instead: for each version of the data and each query (filters
// and arguments included), the key at every `every`-th position is read once, in one pass that
// returns only those keys (the anchors), and a page starts at the anchor at or before its offset,
// skipping fewer than `every` rows. Offsets, page numbers and envelopes stay as they are.
import { sql, type Kysely } from 'kysely'
import { versionedMemo } from '../store/count-cache.js'
import { rowsOf, type AnyQuery, type QueryShape } from './shapes.js'
import { template, type Template } from './template.js'

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

/** A slicer that seeks from anchors kept per `version` of the data (the store's, read on every deep page). */
export function keysetSlicer (db: Kysely<any>, options: KeysetOptions, version: () => Promise<string>): Slicer {
  const every = options.every ?? DEFAULT_ANCHOR_EVERY
  if (!Number.isSafeInteger(every) || every < 1) throw new RangeError(`keyset.every must be a positive integer; got ${every}.`)
  const column = sql.ref(options.column)
  const anchors = versionedMemo<unknown[]>({ version, maxEntries: KEPT_ANCHORS })
  // Each shape's seek compiled once, and forgotten with the shape: (key, limit, offset).
  const seeks = new WeakMap<QueryShape<any>, Template<any>>()
  const seekOf = <Row>(shape: QueryShape<Row>): Template<Row> => {
    let seek = seeks.get(shape)
    if (seek === undefined) {
      seek = template(3, (from, limit, offset) => shape.query.where(column, '>=', from).limit(limit).offset(offset))
      seeks.set(shape, seek)
    }
    return seek
  }
  return async (shape, offset, limit) => {
    const index = Math.floor(offset / every)
    if (index === 0) return await rowsOf(db, shape.page(limit, offset))
    const keys = await anchors.get(shape.key, async () => await anchorKeys(db, shape.query, column, every))
    // Past the last anchor there are no rows to seek to; OFFSET says so as well as anything.
    if (index >= keys.length) return await rowsOf(db, shape.page(limit, offset))
    return await rowsOf(db, seekOf(shape)(keys[index], limit, offset - index * every))
  }
}

/** The keys at positions 0, every, 2 × every, …: numbered in one pass, only those returned. */
async function anchorKeys (db: Kysely<any>, query: AnyQuery<unknown>, column: ReturnType<typeof sql.ref>, every: number): Promise<unknown[]> {
  const numbered = query.clearSelect().clearOrderBy().select([column.as('anchor'), sql<number>`row_number() over (order by ${column})`.as('position')])
  const rows = await db.selectFrom(numbered.as('numbered')).select('anchor').where(sql`(${sql.ref('position')} - 1) % ${sql.lit(every)}`, '=', 0).orderBy('position').execute()
  return rows.map((row) => (row as { anchor: unknown }).anchor)
}
