// Choices described in their displays, as the payload speaks them: an integer choice spoken as
// "Low" is never described as an integer, and two values sharing a display are listed once.
import { admitsNull, jsonTypesOf } from '../json-types.js'
import type { JsonSchema } from './json-schema.js'

export interface Restated {
  readonly schema: JsonSchema
  /** True when duplicates collapsed, so a list of such values can no longer claim uniqueness. */
  readonly shrank: boolean
}

/** Restates `enum`, `oneOf` constants and `anyOf` members of `schema` in their displays. */
export function restateChoices (schema: JsonSchema, displays: ReadonlyMap<unknown, string>): Restated {
  const out: Record<string, unknown> = { ...schema }
  let shrank = false
  let listed: unknown[] = []
  let open = false
  if (Array.isArray(schema.enum)) {
    listed = unique(schema.enum.map((value) => speak(value, displays)), (value) => value)
    shrank = listed.length < schema.enum.length
    out.enum = listed
  }
  if (Array.isArray(schema.oneOf)) {
    const spoken = schema.oneOf.map((entry: JsonSchema) => hasConst(entry) ? { const: speak(entry.const, displays) } : entry)
    const entries = unique(spoken, (entry) => hasConst(entry) ? entry.const : entry)
    shrank = entries.length < schema.oneOf.length
    open = entries.some((entry) => !hasConst(entry))
    listed = entries.filter(hasConst).map((entry) => entry.const)
    out.oneOf = entries
  }
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf.map((member: JsonSchema) => restateChoices(member, displays))
    shrank ||= members.some((member) => member.shrank)
    out.anyOf = members.map((member) => member.schema)
  }
  const nonNull = listed.filter((value) => value !== null)
  if (Object.hasOwn(schema, 'type') && !open && nonNull.length > 0) {
    const names = [jsonTypesOf(nonNull)].flat()
    if (admitsNull(schema.type) && !displays.has(null)) names.push('null')
    out.type = names.length === 1 ? names[0] : names
  }
  return { schema: out, shrank }
}

function speak (value: unknown, displays: ReadonlyMap<unknown, string>): unknown {
  const display = displays.get(value)
  return display === undefined ? value : display
}

function hasConst (entry: unknown): entry is { const: unknown } {
  return typeof entry === 'object' && entry !== null && Object.hasOwn(entry, 'const')
}

/** The first of each group of JSON-equal keys, in order (`true` and `1` differ). */
function unique<T> (values: readonly T[], keyOf: (value: T) => unknown): T[] {
  const seen = new Set<string>()
  return values.filter((value) => {
    const key = JSON.stringify(keyOf(value))
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
