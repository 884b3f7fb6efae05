// The OpenAPI components: every schema worth a name is published once under it and referenced
// wherever it occurs, so the document reads `Book`, `BookForAgents`, `BookPage`. A schema is named
// where it is made (`named`), as a note only this module reads; the document is then cut from the
// very objects the serializers use, and one name given to two different schemas is refused.
import { MountError } from '../core/mount.js'
import { AvailabilitySchema } from '../declare/index.js'
import { noteOf, withNote } from '../schema-notes.js'

/** Where a schema is published in the OpenAPI document. */
interface Component {
  readonly name: string
  /** The component's own body: a schema published as it may differ from it in title and description. */
  readonly schema: object
}

const COMPONENT = Symbol.for('audience-gateway.component')
const COMPONENTS = '#/components/schemas/'

/** A copy of `schema` published as the component `name`, whose body is `body` (default: the copy). */
export function named<T extends object> (schema: T, name: string, body?: object): T {
  const copy = withNote(schema, COMPONENT, undefined)
  Object.defineProperty(copy, COMPONENT, { value: Object.freeze({ name, schema: body ?? copy }) })
  return copy
}

/** Schemas any record may hold, each published once under its own name wherever it occurs. */
const SHARED: ReadonlyArray<readonly [name: string, schema: object]> = [['Availability', AvailabilitySchema]]

/**
 * Names the shared schemas among a record's fields and those of the records nested in them (an
 * affordance is a field of `affordances`); copies only what changes.
 */
export function withSharedNames<T extends object> (schema: T): T {
  const shared = SHARED.find(([, known]) => sameSchema(unannotated(schema), unannotated(known)))
  if (shared !== undefined) return named(schema, shared[0], shared[1])
  const fields = (schema as { properties?: Record<string, object> }).properties
  if (fields === undefined) return schema
  let changed = false
  const properties: Record<string, object> = {}
  for (const [key, field] of Object.entries(fields)) {
    properties[key] = withSharedNames(field)
    changed ||= properties[key] !== field
  }
  return changed ? { ...schema, properties } : schema
}

/** The components of one document, collected as routes register. */
export interface Components {
  /** Registers the named schemas in a route's responses; `where` names the route in a refusal. */
  collect: (responses: unknown, where: string) => void
  /** The responses as documented: every named schema replaced by a reference to its component. */
  referenced: (responses: unknown) => unknown
  /** `document` with the collected components beside any it had, in name order (a stable document). */
  publish: <D extends { components?: { schemas?: Record<string, object> } }>(document: D) => D
}

export function components (): Components {
  const registered = new Map<string, object>()
  return {
    collect: (responses, where) => {
      mapResponses(responses, (schema) => referenced(schema, function collect (component) { register(component, where) }))
    },
    referenced: (responses) => mapResponses(responses, (schema) => referenced(schema, ignore)),
    publish: (document) => {
      const schemas = Object.entries({ ...document.components?.schemas, ...Object.fromEntries(registered) })
      schemas.sort(([a], [b]) => a < b ? -1 : 1)
      return { ...document, components: { ...document.components, schemas: Object.fromEntries(schemas) } }
    }
  }

  /** Registers a component (and those it holds) once; one name for two schemas is refused. */
  function register (component: Component, where: string): void {
    const body = subschemas(component.schema, (child) => referenced(child, function nested (inner) { register(inner, where) }))
    const known = registered.get(component.name)
    if (known === undefined) registered.set(component.name, body)
    else if (!sameSchema(known, body)) {
      throw new MountError(`${where} publishes a schema named '${component.name}' that differs from the one an earlier route published under that name: give its mount its own \`schemaName\` (two mounts of one record need one whenever their overrides, or their lists' paging styles, differ).`)
    }
  }
}

/** True when two schemas say the same, keyword order aside. */
export function sameSchema (a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b)
}

/** Each response's body (or each media type's) through `map`. */
function mapResponses (responses: unknown, map: (schema: unknown) => unknown): unknown {
  if (responses === undefined) return responses
  return mapValues(responses as Record<string, { content?: Record<string, { schema: unknown }> }>, (response) => response.content === undefined
    ? map(response)
    : { ...response, content: mapValues(response.content, (media) => ({ ...media, schema: map(media.schema) })) })
}

/** `schema` with every named subschema replaced by a reference to its component, each told to `found`. */
function referenced (schema: unknown, found: (component: Component) => void): unknown {
  if (typeof schema !== 'object' || schema === null) return schema
  const component = noteOf<Component>(schema, COMPONENT)
  if (component === undefined) return subschemas(schema, (child) => referenced(child, found))
  found(component)
  return reference(schema, component)
}

/** A reference, with what the site says about itself beyond the component (e.g. which affordance). */
function reference (site: object, component: Component): object {
  const ref = { $ref: COMPONENTS + component.name }
  const notes: Record<string, unknown> = {}
  for (const keyword of ANNOTATIONS) {
    const value = (site as Record<string, unknown>)[keyword]
    if (value !== undefined && value !== (component.schema as Record<string, unknown>)[keyword]) notes[keyword] = value
  }
  // A one-member allOf rather than keywords beside $ref: @fastify/swagger drops those.
  return Object.keys(notes).length === 0 ? ref : { ...notes, allOf: [ref] }
}

const ANNOTATIONS = ['title', 'description'] as const

/** JSON Schema keywords whose values are schemas: a map of them, a list of them, or one. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas'])
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'])

/** A copy of `schema` whose subschemas went through `map`; data (enum, const, examples) is kept. */
function subschemas (schema: object, map: (child: unknown) => unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const [keyword, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(keyword)) copy[keyword] = mapValues(value as Record<string, unknown>, map)
    else if (SCHEMA_LISTS.has(keyword)) copy[keyword] = (value as unknown[]).map(map)
    else if (SCHEMA_VALUES.has(keyword)) copy[keyword] = map(value)
    else copy[keyword] = value
  }
  return copy
}

function unannotated (schema: object): object {
  return { ...schema, title: undefined, description: undefined }
}

function canonicalJson (value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => typeof member === 'object' && member !== null && !Array.isArray(member)
    ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => a < b ? -1 : 1))
    : member)
}

function mapValues<T, U> (record: Readonly<Record<string, T>>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]))
}

function ignore (): void {}
