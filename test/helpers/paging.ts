// What a paging style serves through the core's own paged flow: the window for the query, the
// items in it, the envelope around them, checked against the style's own schema (a test fails on
// the throw).
import { paged } from '../../src/core/serve.js'
import type { PagingStyle } from '../../src/paging/index.js'
import type { JsonSchema } from '../../src/projection/index.js'
import { validationErrors } from './ajv.js'

export async function servedEnvelope (
  style: PagingStyle,
  item: JsonSchema,
  query: Readonly<Record<string, number | undefined>>,
  all: readonly unknown[]
): Promise<Record<string, unknown>> {
  const envelope = await paged(style, query, { count: async () => all.length, slice: async (offset, limit) => all.slice(offset, offset + limit) }, (page) => page)
  const errors = validationErrors(style.schema(item), envelope)
  if (errors.length > 0) throw new Error(`${JSON.stringify(query)}: not as published: ${JSON.stringify(errors)}`)
  return envelope
}

/** `total` items numbered from 0. */
export function numbered (total: number): number[] {
  return Array.from({ length: total }, (_, i) => i)
}
