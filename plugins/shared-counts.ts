// Totals counted once per version of the data for every replica, not once per replica: with
// PostgreSQL and Redis both configured, the sources' count cache shares its totals through Redis.
// SQLite's version is one connection's, meaningless to another process: its totals stay in process.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { PostgresIntrospector } from 'kysely'
import { postgresDataVersion, postgresIdentity, sharedCountCache, useCountCache } from '../src/sources/index.js'

async function sharedCounts (app: FastifyInstance): Promise<void> {
  if (app.redis === undefined || !(app.db.introspection instanceof PostgresIntrospector)) return
  useCountCache(app.db, sharedCountCache({
    version: postgresDataVersion(app.db),
    identity: await postgresIdentity(app.db),
    store: app.redis,
    onError: (err) => { app.log.warn({ err }, 'Redis failed a count cache command: the total is counted in this process') }
  }))
}

// Before the routes: sources take their database's count cache when they are made.
export default fp(sharedCounts, { name: 'shared-counts', dependencies: ['store', 'redis'] })
