// The contract every paging style keeps, so the core serves any of them the same way: read the
// request, count, take a window, slice, then wrap the page's items.
import Type, { type TOptional, type TInteger, type TProperties } from 'typebox'
import { AGENT_MEDIA_TYPE } from '../audience.js'
import type { JsonSchema } from '../projection/index.js'

/** Which rows to read: the window a style chose against the total it was told. */
export interface Window {
  readonly offset: number
  readonly limit: number
  /** Arguments the next request must send again (a list's filters), named in the hint. */
  readonly keep?: readonly string[]
}

export interface PagingStyle<W extends Window = Window> {
  /** The query parameters this style reads: agent-only, taken off before the closed arguments. */
  readonly parameters: TProperties
  /** Why a plain client may not send them: it is served the whole resource. */
  readonly agentsOnly: string
  /** The window to read once `total` is known: clamped, never an unbounded offset. */
  window(query: Readonly<Record<string, number | undefined>>, total: number): W
  /** The envelope around the page's (already projected) items. */
  envelope(items: readonly unknown[], window: W): Record<string, unknown>
  /** The envelope's schema around the agent item schema. */
  schema(item: JsonSchema): JsonSchema
  /** How the style pages a list that is not counted first (an upstream's), when it can. */
  readonly uncounted?: UncountedPaging
}

/**
 * Paging a list whose total comes with the window, or never: the window is chosen from the request
 * alone, and the envelope says as much as the source did, nothing guessed.
 */
export interface UncountedPaging {
  window(query: Readonly<Record<string, number | undefined>>): Window
  /** `more` is the source's own word that rows follow; `total` is there only when it is exact. */
  envelope(items: readonly unknown[], window: Window, read: { readonly more: boolean, readonly total?: number }): Record<string, unknown>
  /** With `absent` totals the envelope has no total, and its schema says so. */
  schema(item: JsonSchema, totals: 'exact' | 'absent'): JsonSchema
}

/** How a plain client is told to ask as an agent instead. */
export const ASK_AS_AN_AGENT = `Send \`X-Audience: agent\` or \`Accept: ${AGENT_MEDIA_TYPE}\``

/** Throws a RangeError naming the option unless `value` is a positive integer. */
export function positiveInteger (name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer; got ${value}.`)
  return value
}

/**
 * A paging parameter: an optional integer for agents only. Its only maximum is the largest integer
 * a JSON number holds exactly (a value over the ceiling is served at the ceiling and disclosed, not
 * refused), and it publishes no `default` keyword:
 * a generated client would send it on every call, and a plain client that sends one is refused.
 * The default is stated in the description instead.
 */
export function agentParameter (description: string, bounds: { readonly minimum?: number, readonly default?: number } = {}): TOptional<TInteger> {
  const { default: usual, ...limits } = bounds
  const stated = usual === undefined ? '' : ` Default: ${usual}.`
  return Type.Optional(Type.Integer({ ...limits, maximum: Number.MAX_SAFE_INTEGER, description: `Agents only. ${description}${stated}` }))
}
