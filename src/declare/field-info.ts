// What was declared about a field (its marking, its choices' displays) travels with the field's
// schema as a note (schema-notes.ts): invisible to JSON, ajv and the OpenAPI document.
import type { TSchema } from 'typebox'
import { noteOf, withNote } from '../schema-notes.js'
import type { Marking } from './markings.js'

const FIELD_INFO = Symbol.for('audience-gateway.field-info')

export interface FieldInfo {
  readonly marking?: Marking
  /** Stored value -> display, for the pairs whose display differs from the value. */
  readonly displays?: ReadonlyMap<unknown, string>
}

/** What was declared about a field, if anything. */
export function fieldInfo (schema: unknown): FieldInfo {
  return noteOf<FieldInfo>(schema, FIELD_INFO) ?? {}
}

/** A copy of `schema` carrying `info` merged over what it already carried; `schema` is untouched. */
export function withFieldInfo<T extends TSchema> (schema: T, info: FieldInfo): T {
  return withNote(schema, FIELD_INFO, Object.freeze({ ...fieldInfo(schema), ...info }))
}
