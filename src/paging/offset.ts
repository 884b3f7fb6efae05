// The offset style, the self-describing envelope agents loop on: the offset is served as sent, a
// limit over the ceiling is clamped and disclosed, and the envelope says exactly what is left.
import type { JsonSchema } from '../projection/index.js'
import { continuationSchema, withContinuation } from './continuation.js'
import { agentParameter, ASK_AS_AN_AGENT, positiveInteger, type PagingStyle, type Window } from './style.js'

export interface OffsetOptions {
  readonly style: 'offset'
  /** The noun the items are counted in: `entries` publishes `total_entries`. */
  readonly unit: string
  /** The most items a page holds (default 100): more is served at it and disclosed. */
  readonly ceiling?: number
  /** The limit when none is sent (default 50), bounded by the ceiling. */
  readonly defaultLimit?: number
}

export const OFFSET_DEFAULTS = { ceiling: 100, defaultLimit: 50 } as const

/** The rows a request asks for, before anything is known of the list. */
export interface OffsetLimits extends Window {
  /** Whether the request's `limit` was above the ceiling. */
  readonly clamped: boolean
}

export interface OffsetWindow extends OffsetLimits {
  readonly total: number
}

/** What the offset envelope reports, before the page's items are known. */
export interface OffsetState {
  /** The noun the total is counted in (`entries` -> `total_entries`). */
  readonly unit: string
  /** Exact; absent only for a list the source cannot count (then `more` says whether rows follow). */
  readonly total?: number
  /** The source's own word that rows follow this window, when there is no total to tell. */
  readonly more?: boolean
  /** As sent (0 when absent), even at or past the end. */
  readonly offset: number
  /** The limit actually used. */
  readonly limit: number
  /** The ceiling `limit` was clamped to, when the request asked for more. */
  readonly clampedTo?: number
  /** The arguments the next request sends again, named in the hint. */
  readonly keep?: readonly string[]
}

export function offsetStyle (options: Omit<OffsetOptions, 'style'>): PagingStyle<OffsetWindow> {
  const { unit } = options
  // The unit becomes a property name (`total_<unit>`), read by models and published in OpenAPI.
  if (!/^[a-z][a-z0-9_]*$/.test(unit)) throw new RangeError(`unit must be a lower-case noun such as "entries"; got ${JSON.stringify(unit)}.`)
  const ceiling = positiveInteger('ceiling', options.ceiling ?? OFFSET_DEFAULTS.ceiling)
  const defaultLimit = positiveInteger('defaultLimit', options.defaultLimit ?? OFFSET_DEFAULTS.defaultLimit)
  return {
    parameters: {
      offset: agentParameter(`How many ${unit} to skip; send the previous page's next_offset to go on.`, { minimum: 0, default: 0 }),
      limit: agentParameter(`How many ${unit} to return, at most ${ceiling}: more is served as ${ceiling} and disclosed.`, { minimum: 1, default: Math.min(defaultLimit, ceiling) })
    },
    agentsOnly: `Paging applies to agents only: a plain client gets the whole list. ${ASK_AS_AN_AGENT} to page.`,
    window: (query, total) => offsetWindow(query.offset, query.limit, total, ceiling, defaultLimit),
    envelope: (items, window) => offsetEnvelope(items, {
      unit,
      total: window.total,
      offset: window.offset,
      limit: window.limit,
      clampedTo: window.clamped ? ceiling : undefined,
      keep: window.keep
    }),
    schema: (item) => offsetEnvelopeSchema(item, unit, ceiling),
    uncounted: {
      window: (query) => offsetLimits(query.offset, query.limit, ceiling, defaultLimit),
      envelope: (items, window, read) => offsetEnvelope(items, {
        unit,
        total: read.total,
        more: read.more,
        offset: window.offset,
        limit: window.limit,
        clampedTo: (window as OffsetLimits).clamped ? ceiling : undefined,
        keep: window.keep
      }),
      schema: (item, totals) => offsetEnvelopeSchema(item, unit, ceiling, totals)
    }
  }
}

/**
 * The offset is kept as sent, even past the end (nothing is read then); only a limit the request
 * sent is clamped, and disclosed. `limit < 1` and `offset < 0` never get here: the parameters'
 * schema refuses them.
 */
export function offsetWindow (offset: number | undefined, limit: number | undefined, total: number, ceiling: number, defaultLimit: number = OFFSET_DEFAULTS.defaultLimit): OffsetWindow {
  // Written out, not spread: a spread followed by a property of its own costs V8 about a microsecond.
  const window = offsetLimits(offset, limit, ceiling, defaultLimit)
  return { offset: window.offset, limit: window.limit, clamped: window.clamped, total }
}

function offsetLimits (offset: number | undefined, limit: number | undefined, ceiling: number, defaultLimit: number): OffsetLimits {
  const asked = limit ?? Math.min(defaultLimit, ceiling)
  return { offset: offset ?? 0, limit: Math.min(asked, ceiling), clamped: asked > ceiling }
}

/**
 * `has_more` counts from the offset as sent and what was actually returned against the exact
 * total, so `next_offset` always moves forward: an agent paging "until false" cannot loop. Without
 * a total it is the source's own word, and only a window that returned rows can say more follow.
 */
export function offsetEnvelope (items: readonly unknown[], state: OffsetState): Record<string, unknown> {
  const { unit, total, offset, limit, clampedTo } = state
  const returned = items.length
  const hasMore = total === undefined ? state.more === true && returned > 0 : offset + returned < total
  const envelope = total === undefined
    ? { items, has_more: hasMore, returned, offset, limit }
    : { items, has_more: hasMore, [`total_${unit}`]: total, returned, offset, limit }
  return withContinuation(
    envelope,
    hasMore ? { parameter: 'offset', value: offset + returned, unit, keep: state.keep } : undefined,
    clampedTo === undefined ? undefined : `limit was clamped to the maximum of ${clampedTo}`
  )
}

/**
 * `ceiling` is published as the items' `maxItems`. With `absent` totals (a list its source cannot
 * count) the envelope has no total, and says so.
 */
export function offsetEnvelopeSchema (item: JsonSchema, unit: string, ceiling: number, totals: 'exact' | 'absent' = 'exact'): JsonSchema {
  const total = `total_${unit}`
  return {
    type: 'object',
    ...(totals === 'absent' ? { description: `A page of ${unit}. Their number is not known in advance: there is no total, and has_more is the source's own word that more follow.` } : {}),
    properties: {
      items: { type: 'array', items: item, maxItems: ceiling, description: `This page's ${unit}, in a stable order.` },
      has_more: { type: 'boolean', description: `Whether ${unit} follow this page: page until it is false.` },
      ...(totals === 'absent' ? {} : { [total]: { type: 'integer', minimum: 0, description: `How many ${unit} there are in all (exact).` } }),
      returned: { type: 'integer', minimum: 0, description: `How many ${unit} this page holds.` },
      offset: { type: 'integer', minimum: 0, description: 'The offset as sent: how many were skipped before this page.' },
      limit: { type: 'integer', minimum: 1, description: 'The limit actually used.' },
      ...continuationSchema('next_offset', 'The offset to send for the next page (offset + returned). Present only when has_more is true.', 'limit')
    },
    required: ['items', 'has_more', ...(totals === 'absent' ? [] : [total]), 'returned', 'offset', 'limit']
  }
}
