// The schema side: describes what the payload side serves, reading the same projection, so the
// two cannot diverge. Every change here mirrors one in payload.ts.
import { admitsNull } from '../json-types.js'
import type { FieldAction, Projection } from './build.js'
import { isArraySchema, isObjectSchema, type JsonSchema } from './json-schema.js'
import { choicesInDisplays } from './choices-in-displays.js'

export interface ProjectSchemaOptions {
  /** The transport's sentence for a handle whose marking declares no description. */
  handleDescription?: string
}

/**
 * Applies a projection to an item schema, or to an array schema of items. Null in, null out; an
 * empty projection or a schema without properties comes back as the same object; the input is
 * never modified.
 */
export function projectSchema (schema: object, projection: Projection, options?: ProjectSchemaOptions): JsonSchema
export function projectSchema (schema: object | null, projection: Projection, options?: ProjectSchemaOptions): JsonSchema | null
export function projectSchema (schema: object | null, projection: Projection, options: ProjectSchemaOptions = {}): JsonSchema | null {
  if (schema === null || projection.isEmpty) return schema as JsonSchema | null
  if (!isArraySchema(schema)) return projectRecordSchema(schema as JsonSchema, projection, options)
  const items = projectRecordSchema(schema.items, projection, options)
  return items === schema.items ? schema : { ...schema, items }
}

function projectRecordSchema (schema: JsonSchema, projection: Projection, options: ProjectSchemaOptions): JsonSchema {
  if (!isObjectSchema(schema)) return schema
  const properties: Record<string, JsonSchema> = {}
  for (const [key, field] of Object.entries(schema.properties)) {
    const action = projection.fields.get(key)
    if (action === undefined) properties[key] = field
    else if (action.action !== 'hide') properties[key] = projectFieldSchema(field, action, options)
  }
  const { required: _required, ...rest } = schema
  const required = schema.required?.filter((key) => projection.fields.get(key)?.action !== 'hide')
  return required === undefined || required.length === 0 ? { ...rest, properties } : { ...rest, properties, required }
}

function projectFieldSchema (field: JsonSchema, action: Exclude<FieldAction, { action: 'hide' }>, options: ProjectSchemaOptions): JsonSchema {
  switch (action.action) {
    case 'keep':
      return describe(field, action.handle ? action.description ?? options.handleDescription : action.description)
    case 'format':
      return describe(formattedSchema(field, action), action.description)
    case 'nest':
      return describe(
        isArraySchema(field)
          ? { ...field, items: projectRecordSchema(field.items, action.projection, options) }
          : projectRecordSchema(field, action.projection, options),
        action.description
      )
    case 'display':
      return describe(displayedSchema(field, action), action.description)
  }
}

/** Only the field's title and description survive a formatter; the type is what it produces. */
function formattedSchema (field: JsonSchema, action: Extract<FieldAction, { action: 'format' }>): JsonSchema {
  const kept: Record<string, unknown> = {}
  if (field.title !== undefined) kept.title = field.title
  if (field.description !== undefined) kept.description = field.description
  const { produces } = action.formatter
  return { ...kept, ...action.formatter.schema, type: admitsNull(field.type) ? [produces, 'null'] : produces }
}

/** A list's members are displayed one by one, so a list of choices is described on its `items`. */
function displayedSchema (field: JsonSchema, action: Extract<FieldAction, { action: 'display' }>): JsonSchema {
  if (!isArraySchema(field)) return choicesInDisplays(field, action.displays).schema
  const { schema: items, shrank } = choicesInDisplays(field.items, action.displays)
  if (!shrank) return { ...field, items }
  const { uniqueItems: _uniqueItems, ...rest } = field
  return { ...rest, items }
}

function describe (field: JsonSchema, description: string | undefined): JsonSchema {
  return description === undefined ? field : { ...field, description }
}
