// The gateway as a Fastify plugin: every cross-cutting plugin, in order, and `app.mount` for the
// resources registered after it. The demo app (demo/app.ts) is this plus the demo catalogue's routes.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Kysely } from 'kysely'
import type { Registry } from 'prom-client'
import audience from '../plugins/audience.js'
import auth from '../plugins/auth.js'
import cors from '../plugins/cors.js'
import drain from '../plugins/drain.js'
import etag from '../plugins/etag.js'
import mcp, { MCP_CORS, MCP_PATH } from '../plugins/mcp.js'
import metrics from '../plugins/metrics.js'
import mount from '../plugins/mount.js'
import oauthDiscovery, { OAUTH_CORS } from '../plugins/oauth-discovery.js'
import wellFormed from '../plugins/well-formed.js'
import health from '../plugins/health.js'
import loadShedding, { type LoadSheddingOptions } from '../plugins/load-shedding.js'
import problems from '../plugins/problems.js'
import rateLimit from '../plugins/rate-limit.js'
import redis from '../plugins/redis.js'
import requestId from '../plugins/request-id.js'
import securityHeaders from '../plugins/security-headers.js'
import store from '../plugins/store.js'
import swagger, { type SwaggerOptions } from '../plugins/swagger.js'
import tracing from '../plugins/tracing.js'
import { RATE_LIMIT_DEFAULTS, type Config } from './config.js'
import type { GatewayDatabase } from './store/index.js'
import pkg from '../package.json' with { type: 'json' }

export type GatewayOptions = Pick<Config, 'databaseUrl' | 'timeZone' | 'apiKeys' | 'identity'> &
  Partial<Pick<Config, 'corsOrigins' | 'rateLimitMax' | 'rateLimitWindow' | 'redisUrl' | 'host'>> & {
    /** Told the SQL of every query (debugging, tests that count queries). */
    onQuery?: (sql: string) => void
    /** When to shed load; each threshold left out keeps its default. */
    loadShedding?: LoadSheddingOptions
    /** Makes sure of the tables (and rows) the resources read, on every start (default: none). */
    setUp?: (db: Kysely<GatewayDatabase>) => Promise<void>
    /** The sentence an agent is told about a handle whose marking has no description of its own. */
    handleDescription?: string
    /** The tags the resources use, each with what it groups, listed at the top of the OpenAPI document. */
    tags?: SwaggerOptions['tags']
    /** The API's title, version, description and licence, at the top of the OpenAPI document (default: the gateway's own). */
    info?: SwaggerOptions['info']
    /** How long a query waits for a connection (a SQLite reader, a pooled PostgreSQL one) before a 503; default 3 s. */
    acquireTimeoutMs?: number
    /** SQLite readers: whole lists streaming at once (default 8). */
    maxReaders?: number
    /** Whole lists one client (its key, else its address) may stream at once; 0: no bound (default 2). */
    streamsPerClient?: number
    /** How long a streamed list may wait on a client that does not read before it is cut; default 10 s. */
    stallMs?: number
    /** How long it may wait while another request waits for a reader; default 2 s. */
    contendedStallMs?: number
    /** The process's own metrics, scraped with the app's: one registry for every app a process serves in turn (default: the app's own). */
    processMetrics?: Registry
    /** A span per request: true once a tracer provider is registered (src/observe/tracing.ts); default off, no hook. */
    tracing?: boolean
    /** The bytes of lists' answers kept while their data is unchanged; 0 keeps none (default 32 MiB). */
    responseCacheBytes?: number
    /** A SQLite `databaseUrl` naming no file: created (with its directory) when true, the default; refused when false. */
    createDatabase?: boolean
  }

async function gateway (fastify: FastifyInstance, options: GatewayOptions): Promise<void> {
  await fastify.register(problems)
  // First of all hooks: every answer, refused or served, names its request.
  await fastify.register(requestId)
  await fastify.register(tracing, { enabled: options.tracing ?? false })
  // First of the onRequest hooks: while draining, every answer says `Connection: close`, shed ones too.
  await fastify.register(drain)
  // onRequest hooks run in this order: CORS and security headers go on every answer, shed ones
  // included; shedding comes before any work; rate limits after auth, which names the caller.
  await fastify.register(cors, { origins: options.corsOrigins ?? [], paths: { [MCP_PATH]: MCP_CORS, ...OAUTH_CORS } })
  await fastify.register(securityHeaders)
  await fastify.register(wellFormed)
  await fastify.register(loadShedding, options.loadShedding ?? {})
  // State replicas share: rows in the store, rate-limit budgets and counted totals in Redis (if set).
  await fastify.register(redis, { url: options.redisUrl })
  await fastify.register(store, { databaseUrl: options.databaseUrl, onQuery: options.onQuery, setUp: options.setUp, acquireTimeoutMs: options.acquireTimeoutMs, maxReaders: options.maxReaders, streamsPerClient: options.streamsPerClient, create: options.createDatabase, onCount: (outcome) => { fastify.metrics.count(outcome) } })
  await fastify.register(audience)
  await fastify.register(auth, { keys: options.apiKeys, identity: options.identity })
  await fastify.register(rateLimit, {
    max: options.rateLimitMax ?? RATE_LIMIT_DEFAULTS.max,
    windowSeconds: options.rateLimitWindow ?? RATE_LIMIT_DEFAULTS.windowSeconds,
    // One budget across replicas through Redis; while it is out of reach, unlimited rather than failing.
    redis: fastify.redis,
    nameSpace: 'rate-limit:'
  })
  // Every answer counted from here (the routes come after); `/metrics` needs auth's scope check.
  await fastify.register(metrics, { process: options.processMetrics })
  await fastify.register(etag)
  // Before any route: the document is cut from the routes as they register.
  await fastify.register(swagger, { tags: options.tags, info: options.info, identity: options.identity })
  await fastify.register(mount, {
    timeZone: options.timeZone,
    handleDescription: options.handleDescription,
    stallMs: options.stallMs,
    // A stalled list is cut sooner while a request waits for what it holds.
    contendedStallMs: options.contendedStallMs,
    readersWanted: () => fastify.store.readers().waiting > 0,
    responseCacheBytes: options.responseCacheBytes
  })
  // Every mounted resource as an MCP tool, from the same compiled resources the routes serve.
  await fastify.register(mcp, { origins: options.corsOrigins ?? [], host: options.host, info: { name: 'audience-gateway', version: pkg.version } })
  // The URLs its clients probe for OAuth, answered: the resource's metadata, or that this server takes a bearer key.
  await fastify.register(oauthDiscovery, { identity: options.identity })
  await fastify.register(health)
}

export default fp(gateway, { name: 'audience-gateway' })
