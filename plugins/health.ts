// Liveness and readiness for a load balancer: alive while the process serves, ready while the
// store answers.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { sql } from 'kysely'
import Type from 'typebox'
import { StoreUnavailableError } from '../src/errors.js'

const Health = Type.Object({ status: Type.String({ description: '"ok" when healthy.' }) }, { description: 'A health check\'s answer.' })

async function health (app: FastifyInstance): Promise<void> {
  app.get('/healthz', {
    schema: { summary: 'Liveness: the process serves requests.', tags: ['health'], response: { 200: Health } }
  }, async () => ({ status: 'ok' }))

  app.get('/readyz', {
    schema: { summary: 'Readiness: the store answers.', tags: ['health'], response: { 200: Health } }
  }, async (request) => {
    try {
      await sql`select 1`.execute(app.db)
    } catch (err) {
      request.log.warn({ err }, 'store not ready')
      throw new StoreUnavailableError('The store does not answer.')
    }
    return { status: 'ok' }
  })
}

export default fp(health, { name: 'health', dependencies: ['store'] })
