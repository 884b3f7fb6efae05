// Schemas for values the stores present as JSON strings, and nullability stated in the type list
// (`"type": ["string", "null"]`), the form the restating rules read.
import Type, { type TSchema, type TUnsafe, type Static } from 'typebox'
import { DECIMAL_PATTERN } from '../formats.js'
import { fieldInfo, withFieldInfo } from './field-info.js'

/**
 * A decimal presented as its string, so no precision is lost on the way to JSON. The pattern says
 * what the format means to validators that do not know it (most contract testers).
 */
export function Decimal (options: { description?: string } = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ type: 'string', format: 'decimal', pattern: DECIMAL_PATTERN, ...options })
}

/**
 * `schema` with `null` added to its stated type. What was declared about the field (its marking)
 * comes along, so `Nullable(handle(...))` stays a handle.
 */
export function Nullable<S extends TSchema> (schema: S): TUnsafe<Static<S> | null> {
  const { type } = schema as { type?: unknown }
  if (typeof type !== 'string') throw new TypeError('Nullable needs a schema that states a single type.')
  return withFieldInfo(Type.Unsafe<Static<S> | null>({ ...schema, type: [type, 'null'] }), fieldInfo(schema))
}
