// Both response variants of a mount, computed once at registration from one projection: the plain
// item (every field) and the agent item (the projection's mirror), and what wraps each. Each schema
// worth a name carries the OpenAPI component it is published as, out of band (a symbol key that
// JSON, ajv and fast-json-stringify never see), so the document is cut from the very objects the
// serializers use.
//
// Naming rule: the plain item is the declaration's name (`Book`); the agent item is
// `<base>ForAgents` and the agent envelope `<base>Page`, where `<base>` is the mount's `schemaName`,
// else the declaration's name. A mount whose overrides change the agent item must name its own
// base (`BookWithAuthors`): the document refuses one component name for two different schemas.
import type { TSchema } from 'typebox'
import { PROBLEM_MEDIA_TYPE } from '../audience.js'
import { AvailabilitySchema, type RecordDeclaration } from '../declare/index.js'
import type { PagingStyle } from '../paging/index.js'
import { Problem } from '../problem.js'
import { annotateSchema, type JsonSchema, type Projection } from '../projection/index.js'
import type { MountSettings } from './definition.js'

export interface VariantSchemas {
  /** The plain record, published as the declaration's name. */
  readonly plainItem: TSchema
  /** The projected record an agent is served, published as `<base>ForAgents`. */
  readonly agentItem: JsonSchema
  /** The component name of the agent envelope around a list of agent items. */
  readonly envelopeName: string
}

/** Where a schema is published in the OpenAPI document. */
export interface Component {
  readonly name: string
  /** The component's own body: a schema published as it may differ from it in title and description. */
  readonly schema: object
}

/** Where a schema keeps the component it is published as. */
const COMPONENT = Symbol.for('audience-gateway.component')

/** The body of every problem response (RFC 9457). */
export const ProblemBody = named(Problem, 'Problem')

/** A documented problem response: `description` says when it is answered. */
export function problemResponse (description: string): object {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemBody } } }
}

export function variantSchemas (declaration: RecordDeclaration, projection: Projection, settings: MountSettings, schemaName = declaration.name): VariantSchemas {
  const agentItem = annotateSchema(declaration.schema, projection, { handleDescription: settings.handleDescription })
  return {
    plainItem: named(withSharedNames(declaration.schema), declaration.name),
    agentItem: named(withSharedNames(agentItem), `${schemaName}ForAgents`),
    envelopeName: `${schemaName}Page`
  }
}

/** A list: a bare array to plain clients, the style's envelope to agents. */
export function listBodies (schemas: VariantSchemas, style: PagingStyle): { plain: JsonSchema, agent: JsonSchema } {
  return {
    plain: { type: 'array', items: schemas.plainItem as JsonSchema },
    agent: named(style.schema(schemas.agentItem), schemas.envelopeName)
  }
}

/** A copy of `schema` published as the component `name`, whose body is `body` (default: the copy). */
export function named<T extends object> (schema: T, name: string, body?: object): T {
  const copy = copyOf(schema)
  Object.defineProperty(copy, COMPONENT, { value: Object.freeze({ name, schema: body ?? copy }), enumerable: false, configurable: true })
  return copy as T
}

/** The component `schema` is published as, if it is one. */
export function componentOf (schema: object): Component | undefined {
  return (schema as Record<symbol, Component | undefined>)[COMPONENT]
}

/** True when two schemas say the same, keyword order aside. */
export function sameSchema (a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b)
}

/** Schemas any record may hold, each published once under its own name wherever it occurs. */
const SHARED: ReadonlyArray<readonly [name: string, schema: object]> = [['Availability', AvailabilitySchema]]

/**
 * Names the shared schemas among a record's fields and those of the records nested in them (an
 * affordance is a field of `affordances`); copies only what changes.
 */
function withSharedNames<T extends object> (schema: T): T {
  const shared = SHARED.find(([, known]) => sameSchema(unannotated(schema), unannotated(known)))
  if (shared !== undefined) return named(schema, shared[0], shared[1])
  const fields = (schema as JsonSchema).properties
  if (fields === undefined) return schema
  let changed = false
  const properties: Record<string, JsonSchema> = {}
  for (const [key, field] of Object.entries(fields)) {
    properties[key] = withSharedNames(field)
    changed ||= properties[key] !== field
  }
  return changed ? { ...schema, properties } : schema
}

function unannotated (schema: object): object {
  return { ...schema, title: undefined, description: undefined }
}

/** Every own key (TypeBox's non-enumerable ones and field markings included), as it was. */
function copyOf<T extends object> (schema: T): T {
  const copy = {}
  for (const key of Reflect.ownKeys(schema)) Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(schema, key) as PropertyDescriptor)
  return copy as T
}

function canonicalJson (value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => typeof member === 'object' && member !== null && !Array.isArray(member)
    ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => a < b ? -1 : 1))
    : member)
}
