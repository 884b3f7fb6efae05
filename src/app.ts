// The gateway as a Fastify plugin: cross-cutting plugins first, then the resources. The process
// around it (configuration, logger, listening, shutdown) is server.ts.
import type { FastifyInstance } from 'fastify'
import audience from '../plugins/audience.js'
import auth from '../plugins/auth.js'
import gateway from '../plugins/gateway.js'
import health from '../plugins/health.js'
import problems from '../plugins/problems.js'
import store from '../plugins/store.js'
import books from '../routes/books/index.js'
import invoices from '../routes/invoices/index.js'
import type { Config } from './config.js'

export type AppOptions = Pick<Config, 'databaseUrl' | 'timeZone' | 'apiKeys'> & {
  /** Told the SQL of every query (debugging, tests that count queries). */
  onQuery?: (sql: string) => void
}

export default async function app (fastify: FastifyInstance, options: AppOptions): Promise<void> {
  await fastify.register(problems)
  await fastify.register(store, { databaseUrl: options.databaseUrl, onQuery: options.onQuery })
  await fastify.register(audience)
  await fastify.register(auth, { keys: options.apiKeys })
  await fastify.register(gateway, { timeZone: options.timeZone })
  await fastify.register(health)
  await fastify.register(books)
  await fastify.register(invoices)
}
