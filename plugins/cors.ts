// Browsers on the configured origins (CORS_ORIGINS) may call the API; none may when it is empty.
// The allowed origin is echoed, so `Vary: Origin` joins the audience plugin's `Accept, X-Audience`.
import fastifyCors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { AUDIENCE_HEADER } from '../src/audience.js'

export interface CorsOptions {
  /** Exact origins, e.g. `https://app.example.com`. Empty: no CORS headers, no preflight route. */
  origins: readonly string[]
}

/** What a browser script may read besides the safelisted headers: caching, retrying, signing in. */
const EXPOSED_HEADERS = ['ETag', 'Retry-After', 'WWW-Authenticate', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']

async function cors (app: FastifyInstance, options: CorsOptions): Promise<void> {
  if (options.origins.length === 0) return
  const allowed = new Set(options.origins)
  await app.register(fastifyCors, {
    // Decided per request, so an origin not listed gets no CORS header at all (not even the
    // exposed headers) and no preflight; the answer still varies on Origin.
    origin: (origin, allow) => { allow(null, origin !== undefined && allowed.has(origin) ? origin : false) },
    methods: ['GET', 'HEAD'],
    allowedHeaders: ['Authorization', AUDIENCE_HEADER, 'If-None-Match'],
    exposedHeaders: EXPOSED_HEADERS,
    // Bearer keys travel in a header, never in cookies: credentialed requests are not needed.
    credentials: false,
    maxAge: 600,
    // A strict preflight refuses an OPTIONS without Origin in text/plain, outside the problem+json contract.
    strictPreflight: false
  })
}

export default fp(cors, { name: 'cors' })
