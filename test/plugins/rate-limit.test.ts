import Fastify from 'fastify'
import t from 'tap'
import auth from '../../plugins/auth.js'
import audience from '../../plugins/audience.js'
import problems from '../../plugins/problems.js'
import rateLimit from '../../plugins/rate-limit.js'
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

t.test('the counters can live in an injected store, keyed by the key\'s fingerprint', async (t) => {
  const keys: string[] = []
  class CountingStore {
    incr (key: string, callback: (error: Error | null, result?: { current: number, ttl: number }) => void): void {
      keys.push(key)
      callback(null, { current: 1, ttl: 1000 })
    }

    child (): CountingStore { return this }
  }
  const app = Fastify({ logger: false })
  await app.register(problems)
  await app.register(audience)
  await app.register(auth, { keys: [KEY] })
  await app.register(rateLimit, { max: 5, windowSeconds: 1, store: CountingStore })
  app.get('/private', { config: { permissions: [signedIn] } }, async () => 'ok')
  t.teardown(() => app.close())
  t.equal((await app.inject({ url: '/private', headers: AUTH })).statusCode, 200)
  t.equal(keys.length, 1)
  t.match(keys[0], /^key:[0-9a-f]{12}$/)
  t.notMatch(keys[0], KEY, 'never the key itself')
})
