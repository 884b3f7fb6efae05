// POST /products/{sku}/reservations: an action the upstream acts on, through the products' own
// client. Its answer is read as the declared record (201, both audiences); a call is sent once, unless
// it carries an Idempotency-Key, which goes to the upstream with it and makes a failed attempt safe
// to retry; a retry of a call that acted is answered without calling the upstream again; the
// upstream's faults end as they do for reads.
import type { LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import { upstreamClient } from '../../src/index.js'
import { productAt, startDemoUpstream } from '../../demo/upstream.js'
import { validationErrors } from '../helpers/ajv.js'
import { AUTH, buildApp, type TestApp } from '../helpers/app.js'
import { freshRedisPrefix, needs } from '../helpers/services.js'

const TOKEN = 'upstream-token-0123456789'
const upstream = await startDemoUpstream({ rows: 50, token: TOKEN })
t.teardown(async () => { await upstream.close() })
const one: TestApp = await buildApp(t, { upstreamUrl: upstream.url, upstreamToken: TOKEN })
const { app } = one

/** Product 2 is in stock; product 10 (and every tenth) is discontinued. */
const IN_STOCK = productAt(2).sku
const DISCONTINUED = productAt(10).sku

t.beforeEach(() => {
  Object.assign(upstream.faults, { latencyMs: 0, fail: 0, failStatus: 503, throttle: 0, reset: 0, malformed: 0, mismatch: 0, hang: 0 })
  upstream.requests.clear()
})

async function reserve (sku: string, body: unknown = { quantity: 3 }, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: `/products/${sku}/reservations`, payload: body as object, headers: { ...AUTH, ...headers } })
}

function declared (status: number, mediaType: string): object {
  const route = one.routes.find((r) => r.url === '/products/:sku/reservations')
  return (route?.schema?.response as Record<number, { content: Record<string, { schema: object }> }>)[status].content[mediaType].schema
}

const posts = (): number => upstream.requests.recent.filter((request) => request.method === 'POST').length

t.test('a reservation, made by the upstream, answered 201 as the declared record to both audiences', async (t) => {
  const plain = await reserve(IN_STOCK)
  t.equal(plain.statusCode, 201)
  t.match(plain.json(), { reservation_id: /^RES-\d{6}$/, sku: IN_STOCK, quantity: 3, reserved_at: /Z$/ })
  t.strictSame(validationErrors(declared(201, 'application/json'), plain.json()), [])
  const agent = await reserve(IN_STOCK, { quantity: 1 }, { 'x-audience': 'agent' })
  t.equal(agent.statusCode, 201)
  t.match(agent.headers['content-type'], AGENT_MEDIA_TYPE)
  t.strictSame(validationErrors(declared(201, AGENT_MEDIA_TYPE), agent.json()), [])
  t.match(agent.json().reserved_at, /^\d\d \w{3} \d{4} \d\d:\d\d \+00:00$/, 'the instant shown in the zone')
  const sent = upstream.requests.recent.filter((request) => request.method === 'POST')
  t.equal(sent.length, 2)
  t.equal(sent[0].headers.authorization, `Bearer ${TOKEN}`, 'with the upstream\'s own credentials')
  t.equal(sent[0].headers['idempotency-key'], undefined, 'no key sent when the caller sent none')
})

t.test('without a key a call is sent once: the upstream\'s failure is the caller\'s to retry', async (t) => {
  upstream.faults.fail = 1
  const failed = await reserve(IN_STOCK)
  t.equal(failed.statusCode, 502)
  t.equal(failed.json().type, 'urn:audience-gateway:problem:upstream-failed', 'the upstream\'s 503, as a read would end')
  t.equal(posts(), 1, 'not retried: it might have acted')
})

t.test('with a key the call carries it to the upstream, a failed attempt is retried, and a retry of the call is answered without a second reservation', async (t) => {
  upstream.faults.fail = 1
  const first = await reserve(IN_STOCK, { quantity: 2 }, { 'idempotency-key': 'reserve-2' })
  t.equal(first.statusCode, 201)
  t.equal(posts(), 2, 'the failed attempt retried, safely: the upstream acts once by the key')
  const keys = upstream.requests.recent.map((request) => request.headers['idempotency-key'])
  t.ok(typeof keys[0] === 'string' && keys[0] === keys[1], 'the same key on both attempts')
  t.not(keys[0], 'reserve-2', 'the gateway\'s key for the caller\'s, never the caller\'s own')
  const again = await reserve(IN_STOCK, { quantity: 2 }, { 'idempotency-key': 'reserve-2' })
  t.equal(again.statusCode, 201)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.body, first.body)
  t.equal(posts(), 2, 'answered by the gateway: the upstream is not called again')
})

t.test('the upstream\'s faults end as for reads; the upstream\'s refusal of a discontinued product is its failure', async (t) => {
  t.equal((await reserve('SKU-99999')).statusCode, 404, 'a product the upstream does not know')
  const refused = await reserve(DISCONTINUED)
  t.equal(refused.statusCode, 502)
  t.equal(refused.json().type, 'urn:audience-gateway:problem:upstream-failed')
  upstream.faults.mismatch = 1
  const mismatched = await reserve(IN_STOCK)
  t.equal(mismatched.statusCode, 502, 'an answer its record does not admit is never served')
  upstream.faults.reset = 1
  t.equal((await reserve(IN_STOCK)).json().type, 'urn:audience-gateway:problem:upstream-unreachable')
  upstream.faults.malformed = 1
  t.equal((await reserve(IN_STOCK)).json().type, 'urn:audience-gateway:problem:upstream-failed')
  for (const res of [refused, mismatched]) t.strictSame(validationErrors(declared(502, 'application/problem+json'), res.json()), [])
})

t.test('the body is checked before the upstream is called; a key is needed', async (t) => {
  const wrong = await reserve(IN_STOCK, { quantity: 0, note: 'x' })
  t.equal(wrong.statusCode, 400)
  t.strictSame(Object.keys(wrong.json().errors).sort(), ['note', 'quantity'])
  const anonymous = await app.inject({ method: 'POST', url: `/products/${IN_STOCK}/reservations`, payload: { quantity: 1 } })
  t.equal(anonymous.statusCode, 401)
  t.equal(posts(), 0)
})

t.test('the demo upstream refuses what is not a reservation, and a key sent again with another body', async (t) => {
  const post = async (body: string, key?: string): Promise<number> => (await fetch(`${upstream.url}/products/${IN_STOCK}/reservations`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) }
  })).status
  t.equal(await post('not json'), 400)
  t.equal(await post('{"quantity":0}'), 400)
  t.equal(await post('null'), 400)
  t.equal(await post('{"quantity":1}', 'direct'), 201)
  t.equal(await post('{"quantity":1}', 'direct'), 201, 'the same body again: the same answer')
  t.equal(await post('{"quantity":2}', 'direct'), 422)
})

t.test('with Redis, two replicas with stores of their own answer one key alike: the upstream is called once', async (t) => {
  if (!await needs(t, 'Redis')) return
  const { url, clear } = freshRedisPrefix()
  t.teardown(clear)
  const [a, b] = [await buildApp(t, { upstreamUrl: upstream.url, upstreamToken: TOKEN, redisUrl: url }), await buildApp(t, { upstreamUrl: upstream.url, upstreamToken: TOKEN, redisUrl: url })]
  const call = async (replica: TestApp): Promise<LightMyRequestResponse> => await replica.app.inject({ method: 'POST', url: `/products/${IN_STOCK}/reservations`, payload: { quantity: 4 }, headers: { ...AUTH, 'idempotency-key': 'shared-by-redis' } })
  const first = await call(a)
  t.equal(first.statusCode, 201)
  const again = await call(b)
  t.equal(again.statusCode, 201)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.body, first.body)
  t.equal(posts(), 1, 'the other replica answered from Redis, without calling the upstream')
})

t.test('a call without a body still carries its key; another input under the same caller\'s key is another key upstream', async (t) => {
  const client = upstreamClient({ origin: upstream.url, headers: { authorization: `Bearer ${TOKEN}` } })
  t.teardown(client.close)
  await client.send('DELETE', `/products/${IN_STOCK}/reservations`, undefined, { idempotencyKey: 'no-body' }).catch(() => undefined)
  const [sent] = upstream.requests.recent
  t.equal(sent.headers['idempotency-key'], 'no-body')
  t.equal(sent.headers['content-type'], undefined, 'no body, no media type')
  upstream.requests.clear()
  // Every attempt of the first call fails: nothing was done, and the caller's key is free again.
  upstream.faults.fail = 10
  t.equal((await reserve(IN_STOCK, { quantity: 5 }, { 'idempotency-key': 'again-after-failure' })).statusCode, 502)
  upstream.faults.fail = 0
  t.equal((await reserve(IN_STOCK, { quantity: 6 }, { 'idempotency-key': 'again-after-failure' })).statusCode, 201, 'another input under the freed key acts')
  const keys = upstream.requests.recent.map((request) => request.headers['idempotency-key'])
  t.equal(new Set(keys).size, 2, 'each input its own key upstream: the upstream cannot take the second call for a retry of the first')
})
