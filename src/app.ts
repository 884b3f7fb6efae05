// The gateway as a Fastify plugin: cross-cutting plugins first, then the resources. The process
// around it (configuration, logger, listening, shutdown) is server.ts.
import type { FastifyInstance } from 'fastify'
import audience from '../plugins/audience.js'
import auth from '../plugins/auth.js'
import cors from '../plugins/cors.js'
import etag from '../plugins/etag.js'
import gateway from '../plugins/gateway.js'
import health from '../plugins/health.js'
import loadShedding, { type LoadSheddingOptions } from '../plugins/load-shedding.js'
import problems from '../plugins/problems.js'
import rateLimit from '../plugins/rate-limit.js'
import redis from '../plugins/redis.js'
import securityHeaders from '../plugins/security-headers.js'
import sharedCounts from '../plugins/shared-counts.js'
import store from '../plugins/store.js'
import swagger from '../plugins/swagger.js'
import books from '../routes/books/index.js'
import invoices from '../routes/invoices/index.js'
import ledger from '../routes/ledger/index.js'
import { RATE_LIMIT_DEFAULTS, type Config } from './config.js'

export type AppOptions = Pick<Config, 'databaseUrl' | 'timeZone' | 'apiKeys'> &
  Partial<Pick<Config, 'corsOrigins' | 'rateLimitMax' | 'rateLimitWindow' | 'redisUrl'>> & {
    /** Told the SQL of every query (debugging, tests that count queries). */
    onQuery?: (sql: string) => void
    /** When to shed load; each threshold left out keeps its default. */
    loadShedding?: LoadSheddingOptions
  }

export default async function app (fastify: FastifyInstance, options: AppOptions): Promise<void> {
  await fastify.register(problems)
  // onRequest hooks run in this order: CORS and security headers go on every answer, shed ones
  // included; shedding comes before any work; rate limits after auth, which names the caller.
  await fastify.register(cors, { origins: options.corsOrigins ?? [] })
  await fastify.register(securityHeaders)
  await fastify.register(loadShedding, options.loadShedding ?? {})
  // State replicas share: rows in the store, rate-limit budgets and counted totals in Redis (if set).
  await fastify.register(redis, { url: options.redisUrl })
  await fastify.register(store, { databaseUrl: options.databaseUrl, onQuery: options.onQuery })
  await fastify.register(sharedCounts)
  await fastify.register(audience)
  await fastify.register(auth, { keys: options.apiKeys })
  await fastify.register(rateLimit, {
    max: options.rateLimitMax ?? RATE_LIMIT_DEFAULTS.max,
    windowSeconds: options.rateLimitWindow ?? RATE_LIMIT_DEFAULTS.windowSeconds,
    // One budget across replicas through Redis; while it is out of reach, unlimited rather than failing.
    redis: fastify.redis,
    nameSpace: 'rate-limit:',
    skipOnError: true
  })
  await fastify.register(etag)
  // Before any route: the document is cut from the routes as they register.
  await fastify.register(swagger)
  await fastify.register(gateway, { timeZone: options.timeZone })
  await fastify.register(health)
  await fastify.register(books)
  await fastify.register(invoices)
  await fastify.register(ledger)
}
