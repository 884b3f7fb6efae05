// The URLs an OAuth client probes. With identity providers trusted, the protected-resource metadata
// (RFC 9728) names them, and the authorization server's own URLs are answered with where it is.
// With keys only, each is a 404 problem saying in words that this server takes a bearer key: MCP
// clients (the Inspector, mcp-remote, the SDK's) meet a 401 by looking for an authorization server,
// and finding nothing they report a registration or a TTY failure, never the gateway's 401; they
// show the body of the last URL they tried.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'
import { PROTECTED_RESOURCE_PATH, protectedResourceMetadata, resourceMetadataUrl } from '../src/identity/resource-metadata.js'
import type { IdentitySettings } from '../src/identity/tokens.js'
import type { CorsAllowance } from './cors.js'

/**
 * What an OAuth client is told, and what a 401 at `/mcp` adds: the key, its header, and where it is
 * explained. No quotation marks: a client shows the answer's JSON as it is, where they would be escaped.
 */
export const BEARER_ONLY = 'This server does not use OAuth: it takes a bearer key, one of its API_KEYS, sent as the header Authorization: Bearer <key>. ' +
  'Configure the client to send that header rather than to sign in (docs/mcp.md of audience-gateway shows how for each MCP client; /openapi.json describes the key).'

export interface OAuthDiscoveryOptions {
  /** The identity providers whose tokens are taken; absent: keys only. */
  identity?: IdentitySettings
}

/**
 * The authorization server's metadata documents: RFC 8414's and OpenID Connect's, each probed bare
 * and with the resource's path after it (`/mcp`), as RFC 9728's is.
 */
const AUTHORIZATION_SERVER = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const
const WELL_KNOWN = [PROTECTED_RESOURCE_PATH, ...AUTHORIZATION_SERVER] as const

/** The endpoints a client of the 2025-03-26 revision assumes at the root when it finds no metadata. */
const ENDPOINTS = ['/authorize', '/token', '/register'] as const

/**
 * What a browser client may send to them, so that it reads the answer rather than a CORS failure:
 * the documents with the protocol revision it names, a registration or a token request as JSON.
 */
export const OAUTH_CORS: Readonly<Record<string, CorsAllowance>> = Object.fromEntries([
  ...WELL_KNOWN.map((path) => [path, { methods: ['GET', 'HEAD'], allowedHeaders: ['Mcp-Protocol-Version'], exposedHeaders: [] }]),
  ...ENDPOINTS.map((path) => [path, { methods: ['GET', 'HEAD', 'POST'], allowedHeaders: ['Content-Type', 'Mcp-Protocol-Version'], exposedHeaders: [] }])
])

async function oauthDiscovery (app: FastifyInstance, options: OAuthDiscoveryOptions): Promise<void> {
  const { identity } = options
  const elsewhere = identity === undefined ? BEARER_ONLY : signInElsewhere(identity)
  const refuse = async (): Promise<never> => { throw problem('AG_NOT_FOUND', elsewhere) }
  if (identity !== undefined) {
    // Read when asked, not at start: the routes' scopes are gathered as the routes register.
    const metadata = async (): Promise<object> => protectedResourceMetadata(identity, app.routeScopes)
    for (const url of [PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}/*`]) app.get(url, { schema: { hide: true } }, metadata)
  }
  const refused = identity === undefined ? WELL_KNOWN : AUTHORIZATION_SERVER
  for (const url of [...refused, ...refused.map((path) => `${path}/*`), ...ENDPOINTS]) {
    // Refused as the request arrives: a registration's JSON or a token request's form is never read.
    app.route({ method: ['GET', 'POST'], url, schema: { hide: true }, onRequest: refuse, handler: refuse })
  }
}

export default fp(oauthDiscovery, { name: 'oauth-discovery', dependencies: ['problems', 'auth'] })

/** What a client probing for an authorization server here is told: it is the issuer, elsewhere. */
function signInElsewhere ({ issuers, audience }: IdentitySettings): string {
  return `This server is an OAuth protected resource, not an authorization server: sign in with ${issuers.map(({ issuer }) => issuer).join(' or ')}, ` +
    `as its metadata at ${resourceMetadataUrl(audience)} says, and send the access token as the header Authorization: Bearer <token>.`
}
