// Markings and choice displays travel with a field's schema out of band: under a symbol key that
// is not enumerable, so JSON.stringify, ajv and the OpenAPI document never see a trace of them,
// while TypeBox's wrappers (Type.Optional, ...) carry them along when they copy a schema.
import type { TSchema } from 'typebox'
import type { Marking } from './markings.js'

const FIELD_INFO = Symbol.for('audience-gateway.field-info')

export interface FieldInfo {
  readonly marking?: Marking
  /** Stored value -> display, for the pairs whose display differs from the value. */
  readonly displays?: ReadonlyMap<unknown, string>
}

/** What was declared about a field, if anything. */
export function fieldInfo (schema: unknown): FieldInfo {
  if (typeof schema !== 'object' || schema === null) return {}
  return (schema as Record<symbol, FieldInfo | undefined>)[FIELD_INFO] ?? {}
}

/** A copy of `schema` carrying `info` merged over what it already carried; `schema` is untouched. */
export function withFieldInfo<T extends TSchema> (schema: T, info: FieldInfo): T {
  const copy = copyOf(schema)
  Object.defineProperty(copy, FIELD_INFO, {
    value: Object.freeze({ ...fieldInfo(schema), ...info }),
    enumerable: false,
    configurable: true
  })
  return copy as T
}

/**
 * Every own key of `schema` (symbols and TypeBox's non-enumerable ones included), each writable and
 * configurable: copying a frozen schema's descriptors as they are would freeze the copy's field
 * info too, and marking it again would throw.
 */
function copyOf (schema: object): Record<PropertyKey, unknown> {
  const copy: Record<PropertyKey, unknown> = {}
  for (const key of Reflect.ownKeys(schema)) {
    Object.defineProperty(copy, key, {
      value: (schema as Record<PropertyKey, unknown>)[key],
      enumerable: Object.prototype.propertyIsEnumerable.call(schema, key),
      writable: true,
      configurable: true
    })
  }
  return copy
}
