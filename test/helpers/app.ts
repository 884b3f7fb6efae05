// A fresh gateway per test file: an in-memory store with the demo catalogue and one known key; or,
// when a suite runs again on PostgreSQL (onPostgres), a fresh schema per app, dropped after.
import Fastify, { type FastifyInstance, type LightMyRequestResponse, type RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Test } from 'tap'
import app, { type AppOptions } from '../../demo/app.js'
import { serverOptions } from '../../src/server.js'
import { validationErrors } from './ajv.js'
import { mediaTypeOf } from './openapi.js'
import { freshSchema, needs } from './services.js'

export const KEY = 'test-key-0123456789abcdef'
export const AUTH = { authorization: `Bearer ${KEY}` } as const
export const AGENT = { ...AUTH, 'x-audience': 'agent' } as const

interface Teardown { after: (fn: () => unknown) => void }

export interface TestApp {
  app: FastifyInstance
  /** Every route the app registered, in order. */
  routes: readonly RouteOptions[]
  /** The response schema a route declares for a status and media type. */
  declaredSchema: (url: string, status: number, mediaType: string) => object
  /**
   * GETs `url` and asserts on `t` that the body matches the schema its route declares for the
   * status and media type answered; the route is the URL's path unless named (`/books/:id`).
   */
  checkedGet: (t: Pick<Test, 'strictSame'>, url: string, headers: Record<string, string>, route?: string) => Promise<LightMyRequestResponse>
}

interface Store { url: string, drop: () => Promise<void> }

/** Where an app keeps its catalogue unless the test names a DATABASE_URL. */
let freshStore = (): Store => ({ url: ':memory:', drop: async () => {} })

/**
 * Runs a test file's suite again on PostgreSQL: `load` imports the file, and every app it builds
 * gets a fresh schema. When PostgreSQL does not answer, `t` skips (or fails, where it is required).
 */
export async function onPostgres (t: Test, load: () => Promise<unknown>): Promise<void> {
  if (!await needs(t, 'PostgreSQL')) return
  freshStore = freshSchema
  await load()
}

export async function buildApp (t: Teardown, options: Partial<AppOptions> = {}): Promise<TestApp> {
  // The server `npm start` runs (its limits, its problem+json for unroutable URLs), without logs.
  const fastify = Fastify({ ...serverOptions('silent'), logger: false })
  const routes: RouteOptions[] = []
  fastify.addHook('onRoute', (route) => { routes.push(route) })
  const store: Store = options.databaseUrl === undefined ? freshStore() : { url: options.databaseUrl, drop: async () => {} }
  t.after(async () => {
    try {
      // A test's own requests are all answered by now: a socket a client left open (a connection
      // its HTTP pool opened and never used, which Node does not count as idle) is cut, not waited
      // on for the 30 s a silent connection is given.
      const closing = fastify.close()
      fastify.server.closeAllConnections()
      await closing
    } finally {
      await store.drop()
    }
  })
  // Unencapsulated, so tests can reach the app's decorators (app.store.db).
  // A test process is busy by nature: its event-loop lag is not load to shed (tests of shedding set it).
  const quiet = { loadShedding: { maxEventLoopDelay: 0 } }
  await fastify.register(fp(app), { timeZone: 'UTC', apiKeys: [KEY], ...quiet, ...options, databaseUrl: store.url })
  await fastify.ready()
  const declaredSchema: TestApp['declaredSchema'] = (url, status, mediaType) => {
    const route = routes.find((r) => r.url === url && r.method === 'GET')
    const response = (route?.schema?.response as Record<number, { content?: Record<string, { schema: object }> }> | undefined)?.[status]
    const schema = response?.content?.[mediaType]?.schema
    if (schema === undefined) throw new Error(`GET ${url} declares no ${status} ${mediaType} body`)
    return schema
  }
  return {
    app: fastify,
    routes,
    declaredSchema,
    checkedGet: async (t, url, headers, route = url.split('?')[0]) => {
      const res = await fastify.inject({ method: 'GET', url, headers })
      const mediaType = mediaTypeOf(res.headers['content-type'])
      const body = mediaType.endsWith('json') ? res.json() : res.body
      t.strictSame(validationErrors(declaredSchema(route, res.statusCode, mediaType), body), [], `${url} ${res.statusCode} matches its declared schema`)
      return res
    }
  }
}
