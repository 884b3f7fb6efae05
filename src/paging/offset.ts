// The offset style (the self-describing envelope agents loop on): the offset is served as sent, a
// limit over the ceiling is clamped and disclosed, and the envelope says exactly what is left.
import Type from 'typebox'
import { offsetEnvelope, offsetEnvelopeSchema } from './envelope.js'
import type { PagingStyle, Window } from './style.js'

export const DEFAULT_OFFSET_LIMIT = 50
export const DEFAULT_MAX_LIMIT = 100

export interface OffsetWindow extends Window {
  readonly total: number
  /** Whether the request's `limit` was above the ceiling. */
  readonly clamped: boolean
}

export interface OffsetStyleOptions {
  /** The noun the items are counted in: `entries` publishes `total_entries`. */
  unit: string
  /** The ceiling on `limit` (default 100); it bounds the default too. */
  maxLimit?: number
  /** The limit when none is sent (default 50). */
  defaultLimit?: number
}

export function offsetStyle (options: OffsetStyleOptions): PagingStyle<OffsetWindow> {
  const { unit, maxLimit = DEFAULT_MAX_LIMIT, defaultLimit = DEFAULT_OFFSET_LIMIT } = options
  // The unit becomes a property name (`total_<unit>`), read by models and published in OpenAPI.
  if (!/^[a-z][a-z0-9_]*$/.test(unit)) throw new RangeError(`unit must be a lower-case noun such as "entries"; got ${JSON.stringify(unit)}.`)
  positiveInteger('maxLimit', maxLimit)
  positiveInteger('defaultLimit', defaultLimit)
  const usualLimit = Math.min(defaultLimit, maxLimit)
  return {
    parameters: {
      offset: Type.Optional(Type.Integer({
        minimum: 0,
        default: 0,
        description: `Agents only. How many ${unit} to skip; send the previous page's next_offset to go on.`
      })),
      // No maximum: a limit over the ceiling is served at the ceiling and disclosed, not refused.
      limit: Type.Optional(Type.Integer({
        minimum: 1,
        default: usualLimit,
        description: `Agents only. How many ${unit} to return, at most ${maxLimit}: more is served as ${maxLimit} and disclosed.`
      }))
    },
    window: (query, total) => offsetWindow(query.offset, query.limit, total, maxLimit, defaultLimit),
    envelope: (items, window) => offsetEnvelope(items, {
      unit,
      total: window.total,
      offset: window.offset,
      limit: window.limit,
      clampedTo: window.clamped ? maxLimit : undefined
    }),
    schema: (item) => offsetEnvelopeSchema(item, unit)
  }
}

/**
 * The offset is kept as sent, even past the end (the route reads nothing then); only a limit the
 * request sent is clamped, and disclosed. `limit < 1` and `offset < 0` never get here: the
 * parameters' schema refuses them.
 */
export function offsetWindow (offset: number | undefined, limit: number | undefined, total: number, maxLimit: number, defaultLimit = DEFAULT_OFFSET_LIMIT): OffsetWindow {
  const asked = limit ?? Math.min(defaultLimit, maxLimit)
  return { offset: offset ?? 0, limit: Math.min(asked, maxLimit), total, clamped: asked > maxLimit }
}

function positiveInteger (name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer; got ${value}.`)
}
