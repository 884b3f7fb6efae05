// Opens the store once for the app and closes it with the app; routes read `app.db`. A pooled
// connection lost while idle (PostgreSQL restarting) is logged; the next query opens another.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { openStore, type Db, type StoreOptions as OpenOptions } from '../src/store/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Db
  }
}

export interface StoreOptions extends OpenOptions {
  databaseUrl: string
}

async function store (app: FastifyInstance, options: StoreOptions): Promise<void> {
  const db = await openStore(options.databaseUrl, {
    onConnectionError: (err) => { app.log.warn({ err }, 'store connection lost while idle') },
    ...options
  })
  app.decorate('db', db)
  app.addHook('onClose', async () => {
    // Wait for the connection first: a stream to a client that hung up may still hold it.
    // It fails only when the store was already destroyed, which leaves nothing to wait for.
    await db.connection().execute(async () => {}).catch(() => {})
    await db.destroy()
  })
}

export default fp(store, { name: 'store' })
