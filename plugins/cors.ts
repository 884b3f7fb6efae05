// Browsers on the configured origins (CORS_ORIGINS) may call the API; none may when it is empty.
// The allowed origin is echoed, so `Vary: Origin` joins the audience plugin's `Accept, X-Audience`.
// Every path is read-only to a browser, but those given their own allowance: MCP's `/mcp`, and a
// route that says what more it takes in its config (`cors`: an action's method and body headers).
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AUDIENCE_HEADER } from '../src/audience.js'
import { pathOf, pathPattern } from '../src/http/url-path.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a browser may send to this route beyond a read (an action's method, body and key), allowed on its paths. */
    cors?: CorsAllowance
  }
}

/** What a browser may send to one path beyond a read: its methods, its request headers, and what it may read back. */
export interface CorsAllowance {
  readonly methods: readonly string[]
  readonly allowedHeaders: readonly string[]
  /** Readable beside the headers every path exposes. */
  readonly exposedHeaders: readonly string[]
}

export interface CorsOptions {
  /** Exact origins, e.g. `https://app.example.com`. Empty: no CORS headers, no preflight route. */
  origins: readonly string[]
  /** Paths served with more than GET and HEAD, each with its allowance (matched exactly, query aside); every other path is read-only. */
  paths: Readonly<Record<string, CorsAllowance>>
}

/** What a browser script may read besides the safelisted headers: caching, retrying, signing in. */
const EXPOSED_HEADERS = ['ETag', 'Retry-After', 'WWW-Authenticate', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']

/** Every path but those named: a read, with a key, an audience and a validator. */
const READ_ONLY: CorsAllowance = { methods: ['GET', 'HEAD'], allowedHeaders: ['Authorization', AUDIENCE_HEADER, 'If-None-Match'], exposedHeaders: [] }

async function cors (app: FastifyInstance, options: CorsOptions): Promise<void> {
  if (options.origins.length === 0) return
  const allowed = new Set(options.origins)
  const base: FastifyCorsOptions = {
    // Decided per request, so an origin not listed gets no CORS header at all (not even the
    // exposed headers) and no preflight; the answer still varies on Origin.
    origin: (origin, allow) => { allow(null, origin !== undefined && allowed.has(origin) ? origin : false) },
    // Bearer keys travel in a header, never in cookies: credentialed requests are not needed.
    credentials: false,
    maxAge: 600,
    // A strict preflight refuses an OPTIONS without Origin in text/plain, outside the problem+json contract.
    strictPreflight: false
  }
  const optionsOf = ({ methods, allowedHeaders, exposedHeaders }: CorsAllowance): FastifyCorsOptions =>
    ({ ...base, methods: [...methods], allowedHeaders: [...allowedHeaders], exposedHeaders: [...EXPOSED_HEADERS, ...exposedHeaders] })
  const readOnly = optionsOf(READ_ONLY)
  const byPath = new Map(Object.entries(options.paths).map(([path, allowance]) => [path, optionsOf(allowance)]))
  // Routes registered later that allow more, by the pattern of their paths (`/invoices/:id/refund`).
  const byPattern: Array<[RegExp, FastifyCorsOptions]> = []
  app.addHook('onRoute', function rememberAllowance (route) {
    const allowance = route.config?.cors
    if (allowance !== undefined) byPattern.push([pathPattern(route.url), optionsOf({ ...allowance, methods: [...READ_ONLY.methods, ...allowance.methods] })])
  })
  const allowanceOf = (path: string): FastifyCorsOptions => byPath.get(path) ?? byPattern.find(([pattern]) => pattern.test(path))?.[1] ?? readOnly
  // Chosen by the request's path: a preflight names the path it asks for, and reaches the
  // catch-all OPTIONS route, whose own config says nothing of it.
  await app.register(fastifyCors, {
    delegator: function corsOf (request: FastifyRequest, callback) { callback(null, allowanceOf(pathOf(request.url))) }
  })
}

export default fp(cors, { name: 'cors' })
