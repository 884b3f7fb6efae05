// The JSON Schema type names of values, in one canonical order, as a schema states them.

const ORDER = ['boolean', 'integer', 'number', 'string', 'array', 'object'] as const
export type JsonType = typeof ORDER[number] | 'null'

/** A value's JSON Schema type: `1` is an integer, `1.5` a number. */
export function jsonTypeOf (value: unknown): JsonType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  switch (typeof value) {
    case 'boolean': return 'boolean'
    case 'number': return Number.isInteger(value) ? 'integer' : 'number'
    case 'string': return 'string'
    default: return 'object'
  }
}

/**
 * The `type` keyword for `values`: non-null types in canonical order, deduplicated, then `null`
 * last when a value is null. A single name is a string, several a list.
 */
export function jsonTypesOf (values: readonly unknown[]): JsonType | JsonType[] {
  const seen = new Set(values.map(jsonTypeOf))
  const names: JsonType[] = ORDER.filter((name) => seen.has(name))
  if (seen.has('null')) names.push('null')
  return names.length === 1 ? names[0] : names
}

/** True when a schema's stated `type` admits null. */
export function admitsNull (type: unknown): boolean {
  return type === 'null' || (Array.isArray(type) && type.includes('null'))
}
