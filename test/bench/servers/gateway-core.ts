// The gateway without the cross-cutting plugins a production app adds around it (CORS, security
// headers, load shedding, rate limits, ETags, OpenAPI, health): the same flow and the same books
// routes, so the difference to the shipped app is what those plugins cost, and the difference to
// the hand-written route is what the gateway's own work costs.
import Fastify, { type FastifyInstance } from 'fastify'
import audience from '../../../plugins/audience.js'
import auth from '../../../plugins/auth.js'
import mount from '../../../plugins/mount.js'
import problems from '../../../plugins/problems.js'
import redis from '../../../plugins/redis.js'
import store from '../../../plugins/store.js'
import books from '../../../routes/books/index.js'
import { BENCH_LOGGER, type ServerOptions } from './options.js'

export async function gatewayCoreServer ({ databasePath, key, responseCacheBytes }: ServerOptions): Promise<FastifyInstance> {
  const server = Fastify({ logger: BENCH_LOGGER })
  await server.register(problems)
  // No Redis configured: the store's count cache is the process's own, as in the shipped app.
  await server.register(redis, {})
  // Its one key streams a list on every connection at once: no bound on streams per client.
  await server.register(store, { databaseUrl: databasePath, streamsPerClient: 0 })
  await server.register(audience)
  await server.register(auth, { keys: [key] })
  await server.register(mount, { timeZone: 'UTC', responseCacheBytes })
  await server.register(books)
  return server
}
