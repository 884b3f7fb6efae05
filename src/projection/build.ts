// Reads a record declaration into a projection, once, where a route is registered. The precedence
// of the rules lives here and only here: each field gets the one action the payload performs and
// the schema mirrors.
import type { TSchema } from 'typebox'
import { fieldInfo } from '../declare/field-info.js'
import type { Formatter } from '../declare/formatter.js'
import { Marking } from '../declare/markings.js'
import { DEFAULT_TIMESTAMP_FORMAT, timestampFormatter } from '../declare/timestamp.js'
import { isArraySchema, isObjectSchema, type JsonSchema, type RecordSchema } from './json-schema.js'

export type FieldAction =
  | { readonly action: 'hide' }
  /** Served as it is; the schema may still gain a description (a handle's, a label's). */
  | { readonly action: 'keep', readonly handle: boolean, readonly description?: string }
  | { readonly action: 'format', readonly formatter: Formatter, readonly description?: string }
  | { readonly action: 'nest', readonly projection: Projection, readonly each: boolean, readonly description?: string }
  | { readonly action: 'display', readonly displays: ReadonlyMap<unknown, string>, readonly each: boolean, readonly description?: string }

export interface Projection {
  /** Who this projection serves, as refusals name it (e.g. "Route 'GET /books'"). */
  readonly name: string
  /** Only the fields with something to do; every other key passes through whole. */
  readonly fields: ReadonlyMap<string, FieldAction>
  /** The key of the field that names the record, if one is marked. */
  readonly label?: string
  readonly isEmpty: boolean
}

export interface ProjectionOptions {
  /** Names the mount in refusals. */
  name: string
  /** Replaces the declared marking of the named top-level fields, for this mount only. */
  overrides?: Readonly<Record<string, Marking>>
  /** The IANA zone timestamps are rendered in, fixed here so the schema describes every payload. */
  timeZone?: string
}

export class ProjectionError extends Error {
  override name = 'ProjectionError'
}

/** The projection of an object schema whose fields carry markings and choices. */
export function buildProjection (schema: TSchema, options: ProjectionOptions): Projection {
  if (!isObjectSchema(schema)) throw new ProjectionError(`${options.name}: a record declaration must be an object schema with properties.`)
  return buildRecord(schema, '', options)
}

function buildRecord (schema: RecordSchema, path: string, options: ProjectionOptions): Projection {
  const overrides = path === '' ? options.overrides ?? {} : {}
  const fields = new Map<string, FieldAction>()
  let label: string | undefined
  for (const [key, field] of Object.entries(schema.properties)) {
    const marking = Object.hasOwn(overrides, key) ? overrides[key] : fieldInfo(field).marking ?? Marking.content()
    if (marking.kind === 'label') {
      if (label !== undefined) {
        throw new ProjectionError(`${options.name}: a record has one label, but "${path + label}" and "${path + key}" are both marked as the label.`)
      }
      label = key
    }
    const action = actionFor(field, marking, path + key, options)
    if (action !== undefined) fields.set(key, action)
  }
  return Object.freeze({ name: options.name, fields, label, isEmpty: fields.size === 0 })
}

function actionFor (field: JsonSchema, marking: Marking, path: string, options: ProjectionOptions): FieldAction | undefined {
  switch (marking.kind) {
    case 'hidden':
      return { action: 'hide' }
    case 'handle':
      return { action: 'keep', handle: true, description: marking.description }
    case 'formatted':
      return { action: 'format', formatter: marking.formatter, description: marking.description }
    case 'timestamp': {
      const formatter = timestampFormatter(marking.format ?? DEFAULT_TIMESTAMP_FORMAT, options.timeZone ?? 'UTC')
      return { action: 'format', formatter, description: marking.description }
    }
    case 'label':
    case 'content':
      return contentAction(field, marking.kind === 'label' ? marking.description : undefined, path, options)
  }
}

/** A content (or label) field: a nested record first, then choice displays, else unchanged. */
function contentAction (field: JsonSchema, description: string | undefined, path: string, options: ProjectionOptions): FieldAction | undefined {
  const each = isArraySchema(field)
  const value = each ? field.items as JsonSchema : field
  if (isObjectSchema(value)) {
    const projection = buildRecord(value, `${path}.`, options)
    if (!projection.isEmpty) return { action: 'nest', projection, each, description }
  }
  const displays = fieldInfo(value).displays
  if (displays !== undefined && displays.size > 0) return { action: 'display', displays, each, description }
  return description === undefined ? undefined : { action: 'keep', handle: false, description }
}
