// A fresh gateway per test file: an in-memory store with the demo catalogue and one known key.
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import app, { type AppOptions } from '../../src/app.js'

export const KEY = 'test-key-0123456789abcdef'
export const AUTH = { authorization: `Bearer ${KEY}` } as const
export const AGENT = { ...AUTH, 'x-audience': 'agent' } as const

interface Teardown { after: (fn: () => unknown) => void }

export interface TestApp {
  app: FastifyInstance
  /** The response schema a route declares for a status and media type. */
  declaredSchema: (url: string, status: number, mediaType: string) => object
}

export async function buildApp (t: Teardown, options: Partial<AppOptions> = {}): Promise<TestApp> {
  const fastify = Fastify({ logger: false })
  const routes: RouteOptions[] = []
  fastify.addHook('onRoute', (route) => { routes.push(route) })
  // Unencapsulated, so tests can reach the app's decorators (app.db).
  await fastify.register(fp(app), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], ...options })
  await fastify.ready()
  t.after(() => fastify.close())
  return {
    app: fastify,
    declaredSchema: (url, status, mediaType) => {
      const route = routes.find((r) => r.url === url && r.method === 'GET')
      const response = (route?.schema?.response as Record<number, { content?: Record<string, { schema: object }> }> | undefined)?.[status]
      const schema = response?.content?.[mediaType]?.schema
      if (schema === undefined) throw new Error(`GET ${url} declares no ${status} ${mediaType} body`)
      return schema
    }
  }
}
