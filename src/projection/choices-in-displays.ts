// Choices described in their displays, as the payload serves them: an integer choice displayed as
// "Low" is never described as an integer, and two values sharing a display are listed once.
import { displayOf } from '../declare/choices.js'
import { admitsNull, jsonTypesOf } from '../json-types.js'
import type { JsonSchema } from './json-schema.js'

export interface ChoicesInDisplays {
  readonly schema: JsonSchema
  /** True when duplicates collapsed, so a list of such values can no longer claim uniqueness. */
  readonly shrank: boolean
}

/** Describes `enum`, `oneOf` constants and `anyOf` members of `schema` in their displays. */
export function choicesInDisplays (schema: JsonSchema, displays: ReadonlyMap<unknown, string>): ChoicesInDisplays {
  const out: Record<string, unknown> = { ...schema }
  const listed: unknown[] = []
  let shrank = false
  // A oneOf entry without a const admits more than constants: narrowing the type would refuse it.
  let open = false
  if (Array.isArray(schema.enum)) {
    const values = unique(schema.enum.map((value) => displayOf(value, displays)))
    shrank = values.length < schema.enum.length
    listed.push(...values)
    out.enum = values
  }
  if (Array.isArray(schema.oneOf)) {
    const entries = unique(schema.oneOf.map((entry: unknown) => hasConst(entry) ? { const: displayOf(entry.const, displays) } : entry))
    shrank ||= entries.length < schema.oneOf.length
    open = !entries.every(hasConst)
    listed.push(...entries.filter(hasConst).map((entry) => entry.const))
    out.oneOf = entries
  }
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf.map((member: JsonSchema) => choicesInDisplays(member, displays))
    shrank ||= members.some((member) => member.shrank)
    out.anyOf = members.map((member) => member.schema)
  }
  const named = listed.filter((value) => value !== null)
  if (Object.hasOwn(schema, 'type') && !open && named.length > 0) out.type = typeInDisplays(named, schema.type, displays)
  return { schema: out, shrank }
}

/** The types of the listed values, `null` last when the stated type admitted it and null has no display. */
function typeInDisplays (named: readonly unknown[], stated: unknown, displays: ReadonlyMap<unknown, string>): unknown {
  const served = admitsNull(stated) && !displays.has(null) ? [...named, null] : named
  return jsonTypesOf(served)
}

function hasConst (entry: unknown): entry is { const: unknown } {
  return typeof entry === 'object' && entry !== null && Object.hasOwn(entry, 'const')
}

/** The first of each group of JSON-equal values, in order (`true` and `1` differ). */
function unique<T> (values: readonly T[]): T[] {
  const seen = new Set<string>()
  return values.filter((value) => {
    const key = JSON.stringify(value)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
