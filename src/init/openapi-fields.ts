// An OpenAPI schema as a record's fields: each property a field of its JSON type, nullable when
// null is a value (3.0's `nullable`, 3.1's type lists), optional when not required, an enum as
// choices with guessed displays. What the gateway cannot declare (a free-form object, one of
// several shapes, a schema nesting itself) is left out, with a note saying so.
import type { FieldDeclaration, JsonScalar } from '../config-file/schema.js'
import { displayOf } from './guesses.js'
import { objectOf, resolve, textOf, type Json, type Note } from './openapi-refs.js'

/** What reading a schema needs: the document its references are in, and where notes go. */
export interface SchemaReading {
  readonly document: Json
  readonly notes: Note[]
}

type Fields = Record<string, FieldDeclaration>

/** A JSON pointer's segment for `name`. */
export function segment (name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1')
}

/**
 * The fields of an object schema, by property, at pointer `at` (the fields' own). `within` names the
 * components being read, outermost first: a property leading back to one of them is left out.
 */
export function fieldsOf (schema: Json, at: string, reading: SchemaReading, within: readonly string[]): Fields {
  const shape = objectShape(schema, at, reading, within)
  const fields: Fields = {}
  for (const [name, property] of Object.entries(shape.properties)) {
    const field = fieldOf(property, `${at}/${segment(name)}`, reading, within)
    if (field !== undefined) fields[name] = shape.required.has(name) ? field : optional(field)
  }
  return fields
}

/** `field` with `optional: true`, before what it holds. */
function optional (field: FieldDeclaration): FieldDeclaration {
  const { fields, items, ...rest } = field
  return { ...rest, optional: true, ...(items === undefined ? {} : { items }), ...(fields === undefined ? {} : { fields }) }
}

/** Whether `schema` is an object with properties (a record's shape), its `allOf` parts merged. */
export function hasProperties (schema: Json, reading: SchemaReading): boolean {
  return Object.keys(objectShape(schema, '', { ...reading, notes: [] }, []).properties).length > 0
}

interface Shape {
  readonly properties: Readonly<Record<string, unknown>>
  readonly required: ReadonlySet<string>
}

/** The properties and required names of an object schema, with those of each `allOf` part. */
function objectShape (schema: Json, at: string, reading: SchemaReading, within: readonly string[]): Shape {
  const properties: Record<string, unknown> = { ...objectOf(schema.properties) }
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [])
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const resolved = resolve(reading.document, part, `${at}: a part of allOf`, reading.notes)
    if (resolved === undefined || (resolved.name !== undefined && within.includes(resolved.name))) continue
    const inner = objectShape(resolved.value, at, reading, resolved.name === undefined ? within : [...within, resolved.name])
    Object.assign(properties, inner.properties)
    for (const name of inner.required) required.add(name)
  }
  return { properties, required }
}

/** The field a property's schema declares, or undefined (with a note) when the gateway cannot declare it. */
function fieldOf (property: unknown, at: string, reading: SchemaReading, within: readonly string[]): FieldDeclaration | undefined {
  const { notes } = reading
  const resolved = resolve(reading.document, property, at, notes)
  if (resolved === undefined) return undefined
  if (resolved.name !== undefined && within.includes(resolved.name)) {
    notes.push({ pointer: at, note: `${at}: left out: its schema ${resolved.name} holds itself, and a record cannot nest itself; declare what agents need of it by hand.` })
    return undefined
  }
  const inner = resolved.name === undefined ? within : [...within, resolved.name]
  const schema = oneShape(resolved.value, at, reading)
  if (schema === undefined) return undefined
  if (schema.value.writeOnly === true) {
    notes.push({ pointer: at, note: `${at}: left out: it is writeOnly, never in a response.` })
    return undefined
  }
  const base = baseOf(schema.value, at, reading, inner)
  if (base === undefined) return undefined
  // Written in the order a reader looks for: what it is, what it says, then what it holds.
  const { fields, items, uniqueItems, ...kind } = base
  return {
    ...kind,
    ...annotations(schema.value),
    ...(schema.nullable ? { nullable: true } : {}),
    ...(uniqueItems === undefined ? {} : { uniqueItems }),
    ...(items === undefined ? {} : { items }),
    ...(fields === undefined ? {} : { fields })
  }
}

/** A schema without its null branch (`anyOf: [X, {type: null}]`), and whether it had one; undefined for several shapes. */
function oneShape (schema: Json, at: string, reading: SchemaReading): { value: Json, nullable: boolean } | undefined {
  const branches = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined
  if (branches === undefined) return { value: schema, nullable: schema.nullable === true }
  const shapes = branches.filter((branch) => objectOf(branch)?.type !== 'null')
  const only = shapes.length === 1 ? resolve(reading.document, shapes[0], at, reading.notes) : undefined
  if (only === undefined) {
    reading.notes.push({ pointer: at, note: `${at}: left out: it is one of several shapes (oneOf or anyOf), and a field has one type; declare it by hand if agents need it.` })
    return undefined
  }
  const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = schema
  return { value: { ...rest, ...only.value }, nullable: shapes.length < branches.length || only.value.nullable === true }
}

/** The field's type (or choices) and its own fields or items. */
function baseOf (schema: Json, at: string, reading: SchemaReading, within: readonly string[]): FieldDeclaration | undefined {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type) => type !== 'null' && type !== undefined)
  const nullable = Array.isArray(schema.type) && schema.type.includes('null') ? { nullable: true } : {}
  const leftOut = (why: string): undefined => {
    reading.notes.push({ pointer: at, note: `${at}: left out: ${why}; declare it by hand if agents need it.` })
    return undefined
  }
  if (Array.isArray(schema.enum)) {
    const choices = choicesOf(schema.enum, at, reading.notes)
    return choices === undefined ? leftOut('its enum lists no string, number or boolean') : { ...choices, ...nullable }
  }
  const type = types.length === 0 ? (schema.properties !== undefined || schema.allOf !== undefined ? 'object' : schema.items !== undefined ? 'array' : undefined) : types.length === 1 ? types[0] : 'several'
  switch (type) {
    case 'string': return { type: ({ date: 'date', 'date-time': 'date-time', decimal: 'decimal' } as const)[textOf(schema.format) as 'date'] ?? 'string', ...nullable }
    case 'integer': case 'number': case 'boolean': return { type, ...nullable }
    case 'object': {
      const fields = fieldsOf(schema, `${at}/fields`, reading, within)
      if (Object.keys(fields).length === 0) return leftOut('it is an object without declared properties, and the gateway serves declared fields only')
      return { type: 'object', fields, ...nullable }
    }
    case 'array': {
      const items = schema.items === undefined ? undefined : fieldOf(schema.items, `${at}/items`, reading, within)
      if (items === undefined) return leftOut('it is an array whose items the gateway cannot declare')
      return { type: 'array', items, ...(schema.uniqueItems === true ? { uniqueItems: true } : {}), ...nullable }
    }
    case undefined: return leftOut('its schema says no type')
    default: return leftOut(`its schema allows several types (${types.map(String).join(', ')})`)
  }
}

/** An enum as choices, each value's display guessed from it; null in it is `nullable`. */
function choicesOf (values: readonly unknown[], at: string, notes: Note[]): FieldDeclaration | undefined {
  const kept = values.filter((value): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value))
  if (kept.length === 0) return undefined
  notes.push({ pointer: `${at}/choices`, note: 'choices: each display guessed from its value; write the words agents should read. A value the upstream sends outside them is refused as its fault.' })
  const nullable = values.includes(null) ? { nullable: true } : {}
  if (kept.every((value) => typeof value === 'string')) return { choices: Object.fromEntries(kept.map((value) => [value, displayOf(value)])), ...nullable }
  return { choices: kept.map((value): { value: JsonScalar, display: string } => ({ value, display: displayOf(value) })), ...nullable }
}

/** The schema's description and title, those it has. */
export function annotations (schema: Json): Pick<FieldDeclaration, 'description' | 'title'> {
  const description = textOf(schema.description)
  const title = textOf(schema.title)
  return { ...(description === undefined ? {} : { description }), ...(title === undefined ? {} : { title }) }
}
