// The OpenAPI 3.1 document, cut from the routes themselves, at /openapi.json, and Swagger UI at
// /docs (its own static files only). Every schema a mount names is published once as a component
// and referenced wherever it occurs, so the document reads `Book`, `BookForAgents`, `BookPage`.
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import pkg from '../package.json' with { type: 'json' }
import { AGENT_MEDIA_TYPE } from '../src/audience.js'
import { MountError } from '../src/mount/index.js'
import { componentOf, sameSchema, type Component } from '../src/mount/schemas.js'
import { needsPrincipal } from '../src/permissions.js'

/** The security scheme of every route whose checks ask for a key. */
const BEARER_SCHEME = 'bearerAuth'

const COMPONENTS = '#/components/schemas/'

/** How the X-Audience header is documented on every negotiated route. */
const AUDIENCE_PARAMETER = {
  type: 'string',
  enum: ['agent'],
  description: `\`agent\` selects the agent variant (projected, paged; served as ${AGENT_MEDIA_TYPE}), the same as asking for that media type in Accept. Omit it for the plain variant; any other value is refused (400).`
}

interface OpenApiDocument {
  components?: { schemas?: Record<string, object> }
}

async function swagger (app: FastifyInstance): Promise<void> {
  const components = new Map<string, object>()
  // At registration, so that one name given to two different schemas stops the app from starting.
  app.addHook('onRoute', function registerComponents (route) {
    documentedResponses(route.schema?.response, function register (component) { registerComponent(component, components, route) })
  })

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Audience Gateway', version: pkg.version, description: pkg.description },
      components: {
        securitySchemes: {
          [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: 'One of the keys in API_KEYS: `Authorization: Bearer <key>`.' }
        }
      }
    },
    // OpenAPI 3.1 schemas are JSON Schema 2020-12: `const` stays what the agent schema says.
    convertConstToEnum: false,
    // A schema carrying its own `$id` is a component under that name, never `def-N`.
    refResolver: { buildLocalReference: (json) => String(json.$id).replace(/[^\w.-]/g, '_') },
    transform: ({ schema, url, route }) => ({ url, schema: documented(schema, route) as FastifySchema }),
    transformObject: (document) => withComponents((document as { openapiObject: OpenApiDocument }).openapiObject, components)
  })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } })
  app.get('/openapi.json', { schema: { hide: true } }, async function openapiDocument () {
    return app.swagger()
  })
}

export default fp(swagger, { name: 'swagger' })

/** The route as documented: named schemas referenced, the key asked for, X-Audience offered. */
function documented (schema: FastifySchema | undefined, route: RouteOptions): FastifySchema | undefined {
  if (schema === undefined) return schema
  return {
    ...schema,
    response: documentedResponses(schema.response, ignore),
    ...(needsPrincipal(route.config?.permissions ?? []) ? { security: [{ [BEARER_SCHEME]: [] }] } : {}),
    ...(route.config?.variants === undefined ? {} : { headers: withAudienceHeader(schema.headers) })
  }
}

/** Each response's body (or each media type's) with its named schemas referenced. */
function documentedResponses (responses: unknown, found: (component: Component) => void): unknown {
  if (responses === undefined) return responses
  return mapValues(responses as Record<string, { content?: Record<string, { schema: unknown }> }>, (response) => response.content === undefined
    ? referenced(response, found)
    : { ...response, content: mapValues(response.content, (media) => ({ ...media, schema: referenced(media.schema, found) })) })
}

/** `schema` with every named subschema replaced by a reference to its component, each told to `found`. */
function referenced (schema: unknown, found: (component: Component) => void): unknown {
  if (typeof schema !== 'object' || schema === null) return schema
  const component = componentOf(schema)
  if (component === undefined) return subschemas(schema, (child) => referenced(child, found))
  found(component)
  return reference(schema, component)
}

/** Registers a component (and those it holds) once; one name for two schemas is refused. */
function registerComponent (component: Component, components: Map<string, object>, route: RouteOptions): void {
  const body = subschemas(component.schema, (child) => referenced(child, function nested (inner) { registerComponent(inner, components, route) }))
  const known = components.get(component.name)
  if (known === undefined) components.set(component.name, body)
  else if (!sameSchema(known, body)) {
    throw new MountError(`${String(route.method)} ${route.url} publishes a schema named '${component.name}' that differs from the one an earlier route published under that name: give its mount its own \`schemaName\`.`)
  }
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

/** Documents X-Audience beside whatever headers the route declares. */
function withAudienceHeader (headers: unknown): object {
  const declared = headers as { properties?: object } | undefined
  return { ...declared, type: 'object', properties: { ...declared?.properties, 'X-Audience': AUDIENCE_PARAMETER } }
}

/** The registered components beside any the generator found, in name order (a stable document). */
function withComponents (document: OpenApiDocument, components: ReadonlyMap<string, object>): OpenApiDocument {
  const schemas = Object.entries({ ...document.components?.schemas, ...Object.fromEntries(components) })
  schemas.sort(([a], [b]) => a < b ? -1 : 1)
  return { ...document, components: { ...document.components, schemas: Object.fromEntries(schemas) } }
}

function mapValues<T, U> (record: Readonly<Record<string, T>>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]))
}

function ignore (): void {}
