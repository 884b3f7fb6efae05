// The few shapes of JSON Schema the projection reads; everything else passes through untouched.

export interface JsonSchema {
  readonly type?: string | readonly string[]
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: readonly string[]
  readonly items?: JsonSchema | boolean
  readonly [keyword: string]: unknown
}

/** An object schema with declared properties: a record. */
export type RecordSchema = JsonSchema & { readonly properties: Readonly<Record<string, JsonSchema>> }

/** True for a record: an object schema with declared properties. */
export function isObjectSchema (schema: unknown): schema is RecordSchema {
  return isSchema(schema) && hasType(schema, 'object') && isSchema(schema.properties)
}

/** An array schema with a single item schema. */
export function isArraySchema (schema: unknown): schema is JsonSchema & { items: JsonSchema } {
  return isSchema(schema) && hasType(schema, 'array') && isSchema(schema.items)
}

function isSchema (value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function hasType (schema: JsonSchema, name: string): boolean {
  return schema.type === name || (Array.isArray(schema.type) && schema.type.includes(name))
}
