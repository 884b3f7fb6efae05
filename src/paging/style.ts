// The contract every envelope style keeps, so the route helper serves any of them the same way:
// read the request, count, take a window, slice, then wrap the page's items.
import type { TProperties } from 'typebox'
import type { JsonSchema } from '../projection/index.js'

/** Which rows to read: the window a style chose against the total it was told. */
export interface Window {
  readonly offset: number
  readonly limit: number
}

export interface PagingStyle<W extends Window = Window> {
  /** The query parameters this style reads: agent-only, taken off before the closed arguments. */
  readonly parameters: TProperties
  /** The window to read once `total` is known: clamped, never an unbounded offset. */
  window(query: Readonly<Record<string, number | undefined>>, total: number): W
  /** The envelope around the page's (already projected) items. */
  envelope(items: readonly unknown[], window: W): Record<string, unknown>
  /** The envelope's schema around the agent item schema. */
  schema(item: JsonSchema): JsonSchema
}
