// The URLs an OAuth client probes, answered in words: this server takes a bearer key, not OAuth.
// MCP clients (the Inspector, mcp-remote, the SDK's) meet a 401 by looking for an authorization
// server; finding nothing they report a registration or a TTY failure, never the gateway's 401.
// Each of these URLs is a 404 problem saying what to send instead, which a client shows as the
// body of the last one it tried. The gateway becoming an OAuth resource server replaces this file.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'
import type { CorsAllowance } from './cors.js'

/**
 * What an OAuth client is told, and what a 401 at `/mcp` adds: the key, its header, and where it is
 * explained. No quotation marks: a client shows the answer's JSON as it is, where they would be escaped.
 */
export const BEARER_ONLY = 'This server does not use OAuth: it takes a bearer key, one of its API_KEYS, sent as the header Authorization: Bearer <key>. ' +
  'Configure the client to send that header rather than to sign in (docs/mcp.md of audience-gateway shows how for each MCP client; /openapi.json describes the key).'

/**
 * The metadata documents: RFC 9728's protected resource, RFC 8414's authorization server, OpenID
 * Connect's configuration. Each is probed bare and with the resource's path after it (`/mcp`).
 */
const WELL_KNOWN = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const

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

async function oauthDiscovery (app: FastifyInstance): Promise<void> {
  for (const url of [...WELL_KNOWN, ...WELL_KNOWN.map((path) => `${path}/*`), ...ENDPOINTS]) {
    // Refused as the request arrives: a registration's JSON or a token request's form is never read.
    app.route({ method: ['GET', 'POST'], url, schema: { hide: true }, onRequest: noOAuth, handler: noOAuth })
  }
}

export default fp(oauthDiscovery, { name: 'oauth-discovery', dependencies: ['problems'] })

async function noOAuth (): Promise<never> {
  throw problem('AG_NOT_FOUND', BEARER_ONLY)
}
