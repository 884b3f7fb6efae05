// The OpenAPI 3.1 document, cut from the routes themselves, at /openapi.json, and Swagger UI at
// /docs (its own static files only). Named schemas and the response headers the gateway sends
// become components (src/openapi/components.ts, src/openapi/headers.ts).
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import pkg from '../package.json' with { type: 'json' }
import { AGENT_MEDIA_TYPE } from '../src/audience.js'
import { RESPONSE_HEADERS } from '../src/http/responses.js'
import { components as componentsOf } from '../src/openapi/components.js'
import { withHeaderComponents } from '../src/openapi/headers.js'
import type { IdentitySettings } from '../src/identity/tokens.js'
import { needsPrincipal, scopesOf, type Permission } from '../src/permissions.js'

/** The security scheme of every route whose checks ask for a key. */
const BEARER_SCHEME = 'bearerAuth'

/** How the X-Audience header is documented on every negotiated route. */
const AUDIENCE_PARAMETER = {
  type: 'string',
  enum: ['agent', 'plain'],
  description: `\`agent\` selects the agent variant (projected, paged; served as ${AGENT_MEDIA_TYPE}), the same as asking for that media type in Accept; \`plain\` the plain variant, whatever Accept asks. Compared case-insensitively, surrounding spaces ignored. Without it, Accept decides. Any other value, or two different values, is refused (400).`
}

/** The licence an API is offered under: a name, and an SPDX identifier or a URL of its text. */
export type DocumentLicense = { readonly name: string } & ({ readonly identifier?: string, readonly url?: never } | { readonly url?: string, readonly identifier?: never })

/** What the document says of the API it describes, at its top (OpenAPI's `info`). */
export interface DocumentInfo {
  readonly title: string
  readonly version: string
  /** What it serves; the sentence on the MCP endpoint follows it. */
  readonly description?: string
  /** Left out, the document names none: there are no terms to state (see docs/openapi-lint.md). */
  readonly license?: DocumentLicense
}

export interface SwaggerOptions {
  /** The tags the routes use, each with what it groups; `health` (the probes) is always listed. */
  tags?: ReadonlyArray<{ readonly name: string, readonly description: string }>
  /** The API's title, version, description and licence (default: the gateway's own name and version). */
  info?: DocumentInfo
  /** The identity providers whose tokens are taken: each published as an OpenID Connect scheme beside the key's. */
  identity?: IdentitySettings
}

/** The gateway's own name and version, for an app that names none of its own. */
const GATEWAY_INFO: DocumentInfo = { title: 'Audience Gateway', version: pkg.version, description: pkg.description }

/** The document's `info`: the API's, then how agents reach the same operations. */
function infoOf ({ title, version, description, license }: DocumentInfo): object {
  const mcp = 'The same operations are served to agents as MCP tools at `/mcp` (Streamable HTTP; each tool named by its operationId, answering with the agent variant): point an MCP client at `<this server>/mcp` with `Authorization: Bearer <key>`.'
  return { title, version, description: description === undefined ? mcp : `${description} ${mcp}`, ...(license === undefined ? {} : { license }) }
}

/** What this plugin reads of the document @fastify/swagger cut, to publish its components. */
interface PublishedDocument {
  paths: Record<string, Record<string, unknown>>
  components?: { schemas?: Record<string, object> }
}

const HEALTH_TAG = { name: 'health', description: 'Liveness and readiness, for load balancers and orchestrators.' }

/** How If-None-Match is documented on every read: any answer with an ETag can be revalidated. */
const IF_NONE_MATCH = {
  type: 'string',
  description: 'An ETag this client holds (or `*`): while it names the current representation, the answer is 304 with no body.'
}

async function swagger (app: FastifyInstance, options: SwaggerOptions): Promise<void> {
  const components = componentsOf()
  const tokenSchemes = tokenSchemesOf(options.identity)
  const tokenSchemeNames = Object.keys(tokenSchemes)
  // At registration, so that one name given to two different schemas stops the app from starting.
  app.addHook('onRoute', function registerComponents (route) {
    components.collect(route.schema?.response, `${String(route.method)} ${route.url}`)
  })

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: infoOf(options.info ?? GATEWAY_INFO) as never,
      // Relative: the document is served by the gateway it describes, wherever it is deployed.
      servers: [{ url: '/', description: 'The gateway serving this document.' }],
      tags: [...options.tags ?? [], HEALTH_TAG],
      components: {
        securitySchemes: {
          [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: 'One of the keys in API_KEYS: `Authorization: Bearer <key>`. An operation that lists scopes needs a key carrying each of them (a key configured without scopes carries every scope); a key without one is refused with a 403 naming it.' },
          ...tokenSchemes
        }
      }
    },
    // OpenAPI 3.1 schemas are JSON Schema 2020-12: `const` stays what the agent schema says.
    convertConstToEnum: false,
    // A schema carrying its own `$id` is a component under that name, never `def-N`.
    refResolver: { buildLocalReference: (json) => String(json.$id).replace(/[^\w.-]/g, '_') },
    transform: ({ schema, url, route }) => ({ url, schema: documented(schema, route, components.referenced, tokenSchemeNames) as FastifySchema }),
    transformObject: (document) => withHeaderComponents(components.publish((document as { openapiObject: PublishedDocument }).openapiObject), RESPONSE_HEADERS)
  })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } })
  // The document itself stays out of the document.
  app.get('/openapi.json', { schema: { hide: true } }, async function openapiDocument () {
    return app.swagger()
  })
}

export default fp(swagger, { name: 'swagger' })

/**
 * One OpenID Connect scheme per trusted issuer (`oidc`, then `oidc2`...), its discovery URL named:
 * a token from any of them is taken where a key is, for the same scopes.
 */
function tokenSchemesOf (identity: IdentitySettings | undefined): Record<string, object> {
  if (identity === undefined) return {}
  return Object.fromEntries(identity.issuers.map(({ issuer }, index) => [`oidc${index === 0 ? '' : index + 1}`, {
    type: 'openIdConnect',
    openIdConnectUrl: `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
    description: `An access token from ${issuer} whose audience is ${identity.audience}: \`Authorization: Bearer <token>\`. Its scopes (\`scope\` or \`scp\`) are checked as a key's are.`
  }]))
}

/** The route as documented: named schemas referenced, the key or token (and scopes) asked for or none, the request headers it reads. */
function documented (schema: FastifySchema | undefined, route: RouteOptions, referenced: (responses: unknown) => unknown, tokenSchemes: readonly string[]): FastifySchema | undefined {
  if (schema === undefined) return schema
  const permissions: readonly Permission[] = route.config?.permissions ?? []
  const scopes = scopesOf(permissions)
  return {
    ...schema,
    ...(scopes.length === 0 ? {} : { description: withScopes(schema.description, scopes) }),
    response: referenced(schema.response),
    // An open route says so (`security: []`) rather than leaving a reader to guess.
    // Alternatives: a key, or a token from any trusted issuer, each with the same scopes.
    security: needsPrincipal(permissions) ? [BEARER_SCHEME, ...tokenSchemes].map((name) => ({ [name]: scopes })) : [],
    headers: withRequestHeaders(schema.headers, route.config?.variants !== undefined, [route.method].flat().includes('GET'))
  }
}

/** The operation's description, then the scopes its key needs, in words. */
function withScopes (description: string | undefined, scopes: readonly string[]): string {
  const needs = `Needs a key with the scope${scopes.length === 1 ? '' : 's'} ${scopes.map((name) => `\`${name}\``).join(' and ')}.`
  return [description, needs].filter((part) => part !== undefined).join(' ')
}

/** Documents If-None-Match on a read, and X-Audience on a negotiated route, beside whatever headers the route declares. */
function withRequestHeaders (headers: unknown, negotiated: boolean, read: boolean): object {
  const declared = headers as { properties?: object } | undefined
  const audience = negotiated ? { 'X-Audience': AUDIENCE_PARAMETER } : {}
  return { ...declared, type: 'object', properties: { ...declared?.properties, ...audience, ...(read ? { 'If-None-Match': IF_NONE_MATCH } : {}) } }
}
