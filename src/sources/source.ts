// Where rows come from. A list is counted, then sliced (agents) or streamed (plain clients); a
// list whose size is learned only with its pages (an upstream API's) is read a window at a time
// instead; a record is fetched by its arguments; a text is read whole, as lines. Adapters: an
// in-memory array, a kysely query, a record's text, an upstream HTTP API.
import type { ProblemCode } from '../core/errors.js'

export interface ListSource<Args, Row> {
  /** How many rows the arguments select. */
  count: (args: Args) => Promise<number>
  /** `limit` rows from `offset`, in the source's stable order. */
  slice: (args: Args, offset: number, limit: number) => Promise<Row[]>
  /** Every row, in order, without holding them all in memory. */
  stream: (args: Args) => AsyncIterable<Row>
  /**
   * A name for the rows `stream(args)` would yield now, which changes whenever they may have: a
   * plain list's validator. Read before the stream starts, so a name may be older than the rows it
   * goes with (a later request then gets them again), never newer. Absent: plain lists have none.
   */
  version?: (args: Args) => Promise<string>
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
export interface WindowSource<Args, Row> {
  /** `exact`: every read says the total; `absent`: none does, and the envelope has none. */
  readonly totals: 'exact' | 'absent'
  /** Up to `limit` rows from `offset`, in the source's stable order. */
  window: (args: Args, offset: number, limit: number) => Promise<WindowRead<Row>>
  /** Every row, in order, without holding them all in memory. */
  stream: (args: Args) => AsyncIterable<Row>
  readonly problems?: readonly ProblemCode[]
}

export interface RecordSource<Args, Row> {
  /** The one row the arguments name, or undefined. */
  one: (args: Args) => Promise<Row | undefined>
  readonly problems?: readonly ProblemCode[]
}

export interface TextSource<Args> {
  /** The text the arguments name, as lines without their line breaks, or undefined. */
  lines: (args: Args) => Promise<readonly string[] | undefined>
}

/** True for a list read a window at a time. */
export function isWindowSource<Args, Row> (source: ListSource<Args, Row> | WindowSource<Args, Row>): source is WindowSource<Args, Row> {
  return 'window' in source
}
