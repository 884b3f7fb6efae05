// Opens the store once for the app and closes it with the app; sources read `app.store`. With
// PostgreSQL and Redis both configured, replicas share their counted totals through Redis. A pooled
// connection lost while idle (PostgreSQL restarting) is logged; the next query opens another.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Kysely } from 'kysely'
import { openStore, type GatewayDatabase, type OpenStoreOptions, type Store, type StoreOptions as OpenOptions } from '../src/store/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The store, typed with the tables a project declares in GatewayDatabase. */
    store: Store<GatewayDatabase>
  }
}

export interface StoreOptions extends OpenOptions, Pick<OpenStoreOptions<GatewayDatabase>, 'maxReaders' | 'streamsPerClient' | 'create'> {
  databaseUrl: string
  /** Makes sure of the tables (and rows) the routes read, on every start (default: none). */
  setUp?: (db: Kysely<GatewayDatabase>) => Promise<void>
}

async function store (app: FastifyInstance, options: StoreOptions): Promise<void> {
  const { databaseUrl, ...rest } = options
  const opened = await openStore<GatewayDatabase>(databaseUrl, {
    onConnectionError: (err) => { app.log.warn({ err }, 'store connection lost') },
    onNotice: (message, detail) => { app.log.warn(detail, message) },
    ...rest,
    sharedTotals: app.redis === undefined
      ? undefined
      : { store: app.redis, onError: (err) => { app.log.warn({ err }, 'Redis failed a count cache command: the total is counted in this process') } }
  })
  app.decorate('store', opened)
  app.addHook('onClose', async () => { await opened.close() })
}

export default fp(store, { name: 'store', dependencies: ['redis'] })
