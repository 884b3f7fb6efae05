// Notes carried by a schema out of band: under a symbol key that is not enumerable, so JSON, ajv,
// fast-json-stringify and the OpenAPI document never see them, while TypeBox's wrappers
// (Type.Optional, ...) carry them along when they copy a schema. Field markings and the OpenAPI
// component a schema is published as travel this way, each under a symbol its own module keeps.

/** A copy of `schema` carrying `note` under `key`; `schema` itself is untouched. */
export function withNote<T extends object> (schema: T, key: symbol, note: unknown): T {
  const copy = copyOf(schema)
  Object.defineProperty(copy, key, { value: note, enumerable: false, configurable: true })
  return copy
}

/** A copy of `schema` with `changes` made to it, carrying its notes still. */
export function changed<T extends object> (schema: T, changes: Readonly<Record<string, unknown>>): T {
  return Object.assign(copyOf(schema), changes)
}

/** The note `schema` carries under `key`, if any. */
export function noteOf<N> (schema: unknown, key: symbol): N | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  return (schema as Record<symbol, N | undefined>)[key]
}

/**
 * Every own key of `schema` (symbols and TypeBox's non-enumerable ones included), each writable and
 * configurable: copying a frozen schema's descriptors as they are would freeze the copy's notes
 * too, and noting it again would throw.
 */
function copyOf<T extends object> (schema: T): T {
  const copy: Record<PropertyKey, unknown> = {}
  for (const key of Reflect.ownKeys(schema)) {
    Object.defineProperty(copy, key, {
      value: (schema as Record<PropertyKey, unknown>)[key],
      enumerable: Object.prototype.propertyIsEnumerable.call(schema, key),
      writable: true,
      configurable: true
    })
  }
  return copy as T
}
