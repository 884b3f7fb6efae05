// Opens the store once for the app and closes it with the app; routes read `app.db`.
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
  const db = await openStore(options.databaseUrl, options)
  app.decorate('db', db)
  app.addHook('onClose', async () => { await db.destroy() })
}

export default fp(store, { name: 'store' })
