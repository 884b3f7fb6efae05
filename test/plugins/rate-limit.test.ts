import Fastify from 'fastify'
import t, { type Test } from 'tap'
import auth from '../../plugins/auth.js'
import audience from '../../plugins/audience.js'
import problems from '../../plugins/problems.js'
import rateLimitPlugin, { type Budgets } from '../../plugins/rate-limit.js'
import { signedIn } from '../../src/permissions.js'
import { AUTH, buildApp, KEY } from '../helpers/app.js'

const OTHER_KEY = 'other-key-0123456789abcdef'
const OTHER = { authorization: `Bearer ${OTHER_KEY}` }

async function limitedApp (t: Parameters<typeof buildApp>[0]) {
  return (await buildApp(t, { apiKeys: [KEY, OTHER_KEY], rateLimitMax: 2, rateLimitWindow: 60 })).app
}

t.test('beyond its budget a key gets a 429 problem with Retry-After', async (t) => {
  const app = await limitedApp(t)
  for (const remaining of ['1', '0']) {
    const res = await app.inject({ url: '/books/1', headers: AUTH })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['x-ratelimit-remaining'], remaining)
  }
  const res = await app.inject({ url: '/books/1', headers: AUTH })
  t.equal(res.statusCode, 429)
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
  t.ok(Number(res.headers['retry-after']) > 0 && Number(res.headers['retry-after']) <= 60, `Retry-After ${res.headers['retry-after']}`)
  t.match(res.json(), { type: 'urn:audience-gateway:problem:rate-limited', title: 'Rate limited', status: 429, detail: /^Too many requests: this key may make 2 per 60 s\. Retry after \d+ s\.$/ })
})

t.test('each key has its own budget', async (t) => {
  const app = await limitedApp(t)
  for (let i = 0; i < 3; i++) await app.inject({ url: '/books/1', headers: AUTH })
  t.equal((await app.inject({ url: '/books/1', headers: AUTH })).statusCode, 429)
  t.equal((await app.inject({ url: '/books/1', headers: OTHER })).statusCode, 200)
})

t.test('the limit runs after authentication: a refused key is a 401 and costs no budget', async (t) => {
  const app = await limitedApp(t)
  for (let i = 0; i < 4; i++) {
    t.equal((await app.inject({ url: '/books', headers: { authorization: 'Bearer not-a-key-0123456789' } })).statusCode, 401)
  }
  t.equal((await app.inject({ url: '/books', headers: AUTH })).statusCode, 200)
})

t.test('an open route is limited per address', async (t) => {
  const app = await limitedApp(t)
  const from = (remoteAddress: string) => app.inject({ url: '/ledger', remoteAddress })
  t.equal((await from('192.0.2.1')).statusCode, 200)
  t.equal((await from('192.0.2.1')).statusCode, 200)
  const refused = await from('192.0.2.1')
  t.equal(refused.statusCode, 429)
  t.match(refused.json().detail, /this address may make 2/)
  t.equal((await from('192.0.2.2')).statusCode, 200, 'another address')
})

t.test('health probes are never limited', async (t) => {
  const app = await limitedApp(t)
  for (let i = 0; i < 5; i++) {
    for (const url of ['/healthz', '/readyz']) t.equal((await app.inject({ url })).statusCode, 200, url)
  }
})

t.test('RATE_LIMIT_MAX=0 turns the limit off', async (t) => {
  const { app } = await buildApp(t, { rateLimitMax: 0 })
  for (let i = 0; i < 5; i++) {
    const res = await app.inject({ url: '/books/1', headers: AUTH })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['x-ratelimit-limit'], undefined)
  }
})

/** An app with only what the limit needs, counting in `store`, and a route that needs a key. */
async function withStore (t: Test, store: Budgets) {
  const app = Fastify({ logger: false })
  await app.register(problems)
  await app.register(audience)
  await app.register(auth, { keys: [KEY] })
  await app.register(rateLimitPlugin, { max: 5, windowSeconds: 1, store })
  app.get('/private', { config: { permissions: [signedIn] } }, async () => 'ok')
  t.teardown(() => app.close())
  return app
}

t.test('the counters can live in an injected store, keyed by the key\'s fingerprint', async (t) => {
  const keys: string[] = []
  const app = await withStore(t, {
    incr (key, callback) {
      keys.push(key)
      callback(null, { current: 1, ttl: 1000 })
    }
  })
  const res = await app.inject({ url: '/private', headers: AUTH })
  t.equal(res.statusCode, 200)
  t.strictSame([res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining'], res.headers['x-ratelimit-reset']], ['5', '4', '1'])
  t.equal(keys.length, 1)
  t.match(keys[0], /^key:[0-9a-f]{12}$/)
  t.notMatch(keys[0], KEY, 'never the key itself')
})

t.test('a store that fails to count serves the request uncounted: no 500, and none of the counted answer\'s headers', async (t) => {
  const app = await withStore(t, { incr (_key, callback) { callback(new Error('Connection is closed.')) } })
  const res = await app.inject({ url: '/private', headers: AUTH })
  t.equal(res.statusCode, 200)
  t.equal(res.body, 'ok')
  t.equal(res.headers['x-ratelimit-limit'], undefined)
  t.equal(res.headers['x-ratelimit-remaining'], undefined)
})

t.test('a store that answers later (as Redis does) holds the request until it has counted it', async (t) => {
  const app = await withStore(t, {
    incr (_key, callback) { setImmediate(() => { callback(null, { current: 6, ttl: 400 }) }) }
  })
  const res = await app.inject({ url: '/private', headers: AUTH })
  t.equal(res.statusCode, 429)
  t.equal(res.headers['retry-after'], '1')
  t.equal(res.headers['x-ratelimit-remaining'], '0')
  t.match(res.json(), { detail: 'Too many requests: this key may make 5 per 1 s. Retry after 1 s.' })
})

t.test('a group counts in a budget of its own: MCP\'s beside the routes\'', async (t) => {
  const app = await limitedApp(t)
  const ping = async () => await app.inject({ method: 'POST', url: '/mcp', headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } })
  t.strictSame([(await ping()).headers['x-ratelimit-remaining'], (await ping()).headers['x-ratelimit-remaining'], (await ping()).statusCode], ['1', '0', 429], 'MCP\'s budget spent')
  t.equal((await app.inject({ url: '/books/1', headers: AUTH })).headers['x-ratelimit-remaining'], '1', 'the routes\' budget untouched')
})

t.test('a route says only when it is counted and in which budget: any other setting is refused as it registers', async (t) => {
  for (const [rateLimit, refusal] of [
    [{ max: 1 }, /^\/limited: config\.rateLimit\.max is not a setting of the gateway's rate limit \(only hook and groupId are\)$/],
    [{ hook: 'preValidation' }, /^\/limited: config\.rateLimit\.hook is 'preValidation'; the rate limit counts in onRequest or preHandler$/]
  ] as const) {
    const app = Fastify({ logger: false })
    await app.register(audience)
    await app.register(auth, { keys: [KEY] })
    await app.register(rateLimitPlugin, { max: 5, windowSeconds: 1 })
    t.throws(() => app.get('/limited', { config: { rateLimit } as object }, async () => 'ok'), refusal)
    await app.close()
  }
})
