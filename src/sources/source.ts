// Where rows come from. A list is counted, then sliced (agents) or streamed in batches (plain clients); a
// list whose size is learned only with its pages (an upstream API's) is read a window at a time
// instead; a record is fetched by its arguments; a text is read whole, as lines; bytes are read a range at a
// time. Adapters: an in-memory array, a kysely query, a record's text or bytes, a file, an upstream HTTP API.
import type { ProblemCode } from '../core/errors.js'

/** Where a source tells what it met while reading: a pino-like logger, an object then a message. */
export interface SourceLog {
  warn: (details: object, message: string) => void
}

/**
 * What a source may need of the call it reads for, besides its arguments: the request's id, which
 * an upstream source sends on (`X-Request-Id`), the request's log, which names it on every line
 * (an upstream's failures, a row that does not match), and who reads, whom a store holds readers
 * for. Passed per call, never kept.
 */
export interface ReadContext {
  readonly requestId?: string
  readonly log?: SourceLog
  /**
   * Who reads, as the transport names them (a key's fingerprint, else an address): a store streams
   * only so many whole lists at once for one client. Absent: not counted.
   */
  readonly client?: string
}

/** How a condition compares a field: equal to, at least, at most, or starting with its value. */
export type ConditionOp = 'equals' | 'min' | 'max' | 'prefix'

/**
 * One condition every row served must meet: a filter the mount declared, with the caller's value
 * (the stored value, as a plain client sees it; a date-time in UTC, to the second). Applied by the
 * source itself, before counting and slicing, so totals and pages are of the filtered rows.
 */
export interface Condition {
  /** The record's top-level field. */
  readonly field: string
  readonly op: ConditionOp
  readonly value: string | number | boolean
}

/**
 * True when `row` meets every condition, compared as JavaScript compares the stored values; a
 * missing or null value meets none. What a source applying the conditions in memory selects, and
 * how the core checks a row its row rule's conditions were applied to.
 */
export function meetsEvery (row: unknown, where: readonly Condition[]): boolean {
  return where.every(({ field, op, value }) => {
    const held = (row as Record<string, unknown>)[field]
    if (op === 'equals') return held === value
    if (typeof held !== typeof value) return false
    if (op === 'prefix') return (held as string).startsWith(value as string)
    return op === 'min' ? (held as number | string) >= value : (held as number | string) <= value
  })
}

/** What a list source can filter on: a mount whose filters its source cannot apply is refused. */
export interface Filterable {
  /** True when the source applies `op` on `field` itself. */
  readonly canFilter?: (field: string, op: ConditionOp) => boolean
}

/**
 * The order a caller chose: by one top-level field, ascending or descending, ties broken by the
 * source's own order key (in its own direction). A null (or missing) value is below every other:
 * first ascending, last descending, in every source alike.
 */
export interface Sort {
  readonly field: string
  readonly direction: 'asc' | 'desc'
}

/** What a list source can order by: a mount whose sortable fields its source cannot order by is refused. */
export interface Sortable {
  /** True when the source orders by `field` itself (then its own order key breaks the ties). */
  readonly canSort?: (field: string) => boolean
}

export interface ListSource<Args, Row> extends Filterable, Sortable {
  /** How many rows the arguments (and the conditions) select: the same whatever their order. */
  count: (args: Args, where?: readonly Condition[]) => Promise<number>
  /** `limit` rows from `offset`, in the source's stable order (or by `sort`, then by it). */
  slice: (args: Args, offset: number, limit: number, where?: readonly Condition[], sort?: Sort) => Promise<Row[]>
  /**
   * Every row, in order (by `sort` when given), in batches (arrays of consecutive rows), without holding them
   * all in memory. A batch is what a plain list writes in one piece: a few hundred to a few thousand
   * rows each is the intent, one per store read or upstream page.
   */
  stream: (args: Args, where?: readonly Condition[], context?: ReadContext, sort?: Sort) => AsyncIterable<readonly Row[]>
  /**
   * A name for the rows `stream(args, where, context, sort)` would yield now, in their order, which changes whenever they may
   * have: a plain list's validator. Read before the stream starts, so a name may be older than the
   * rows it goes with (a later request then gets them again), never newer. Absent: plain lists have none.
   */
  version?: (args: Args, where?: readonly Condition[], sort?: Sort) => Promise<string>
  /** The problems reading it can end in (default: the store's). */
  readonly problems?: readonly ProblemCode[]
}

/** One window of a list, with what the source knows of the rest. */
export interface WindowRead<Row> {
  readonly rows: Row[]
  /** Whether rows follow the window, as the source itself says. */
  readonly more: boolean
  /** How many rows there are in all, when the source says so exactly. */
  readonly total?: number
}

/**
 * A list that cannot be counted before it is read: each window is fetched with what follows it,
 * and the total is either always exact or never known, which decides the envelope it publishes.
 */
export interface WindowSource<Args, Row> extends Filterable {
  /** `exact`: every read says the total; `absent`: none does, and the envelope has none. */
  readonly totals: 'exact' | 'absent'
  /** Up to `limit` rows from `offset`, in the source's stable order. */
  window: (args: Args, offset: number, limit: number, where?: readonly Condition[], context?: ReadContext) => Promise<WindowRead<Row>>
  /** Every row, in order, in batches (arrays of consecutive rows), as ListSource's `stream`. */
  stream: (args: Args, where?: readonly Condition[], context?: ReadContext) => AsyncIterable<readonly Row[]>
  readonly problems?: readonly ProblemCode[]
}

export interface RecordSource<Args, Row> {
  /** The one row the arguments name, or undefined. */
  one: (args: Args, context?: ReadContext) => Promise<Row | undefined>
  readonly problems?: readonly ProblemCode[]
}

export interface TextSource<Args> {
  /** The text the arguments name, as lines without their line breaks, or undefined. */
  lines: (args: Args) => Promise<readonly string[] | undefined>
}

/**
 * One resource's bytes, once found: how many there are, a strong validator, and any range of them.
 * Whatever the content is (a blob, a file, an upstream's body), the core reads it the same way.
 */
export interface ByteContent {
  /** How many bytes the content has. */
  readonly length: number
  /** A strong validator: it changes whenever any byte may have (a digest, a file's size and mtime). */
  readonly tag: string
  /** The bytes from `start` (inclusive) to `end` (exclusive), `0 <= start <= end <= length`. */
  read: (start: number, end: number) => Promise<Uint8Array>
}

export interface ByteSource<Args> {
  /** The content the arguments name, or undefined. */
  open: (args: Args) => Promise<ByteContent | undefined>
  /** The problems reading it can end in (default: the store's). */
  readonly problems?: readonly ProblemCode[]
}

/** True for a list read a window at a time. */
export function isWindowSource<Args, Row> (source: ListSource<Args, Row> | WindowSource<Args, Row>): source is WindowSource<Args, Row> {
  return 'window' in source
}
