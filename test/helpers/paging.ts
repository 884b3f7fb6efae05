// What a paging style serves, as a route would: the window for the query, the items in it, the
// envelope around them, checked against the style's own schema (a test fails on the throw).
import type { PagingStyle, Window } from '../../src/paging/index.js'
import type { JsonSchema } from '../../src/projection/index.js'
import { validationErrors } from './ajv.js'

export function servedEnvelope<W extends Window> (
  style: PagingStyle<W>,
  item: JsonSchema,
  query: Readonly<Record<string, number | undefined>>,
  all: readonly unknown[]
): Record<string, unknown> {
  const window = style.window(query, all.length)
  const envelope = style.envelope(all.slice(window.offset, window.offset + window.limit), window)
  const errors = validationErrors(style.schema(item), envelope)
  if (errors.length > 0) throw new Error(`${JSON.stringify(query)}: not as published: ${JSON.stringify(errors)}`)
  return envelope
}

/** `total` items numbered from 0. */
export function numbered (total: number): number[] {
  return Array.from({ length: total }, (_, i) => i)
}
