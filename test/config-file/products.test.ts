// The demo's upstream products declared in examples/products.gateway.json serve what the
// TypeScript products resource serves, read from the same demo upstream: every route, both
// audiences, byte for byte, and the whole OpenAPI document of a gateway serving just them.
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import t from 'tap'
import products from '../../routes/products/index.js'
import { PRODUCTS_TAG } from '../../demo/app.js'
import { startDemoUpstream } from '../../demo/upstream.js'
import gateway from '../../src/gateway.js'
import { serverOptions } from '../../src/server.js'
import { KEY } from '../helpers/app.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'

const upstream = await startDemoUpstream({ rows: 437 })
t.teardown(async () => { await upstream.close() })

async function typedProducts (): Promise<FastifyInstance> {
  const app = Fastify({ ...serverOptions('silent'), logger: false })
  t.teardown(async () => { await app.close() })
  await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], loadShedding: { maxEventLoopDelay: 0 }, tags: [PRODUCTS_TAG] })
  await app.register(products, { upstream: { origin: upstream.url } })
  await app.ready()
  return app
}

const typed = await typedProducts()
const declared = await buildDeclaredApp(t, 'examples/products.gateway.json', { env: { UPSTREAM_URL: upstream.url }, setUp: undefined })

const CALLS = [
  '/products', '/products?limit=2', '/products?offset=430&limit=50', '/products?limit=900', '/products?offset=5000',
  '/products/SKU-00001', '/products/SKU-00437', '/products/SKU-99999', '/products/bad%20sku', '/products?offset=x'
]

for (const url of CALLS) {
  // One request id for both apps: a problem body carries it, and the two answers are compared byte for byte.
  for (const [audience, headers] of Object.entries({ plain: { 'x-request-id': 'compared' }, agent: { 'x-request-id': 'compared', 'x-audience': 'agent' } })) {
    t.test(`GET ${url} as ${audience}: the same answer`, async (t) => {
      const expected = await typed.inject({ method: 'GET', url, headers })
      const actual = await declared.inject({ method: 'GET', url, headers })
      t.equal(actual.statusCode, expected.statusCode, 'status')
      t.equal(actual.headers['content-type'], expected.headers['content-type'], 'media type')
      t.equal(actual.body, expected.body, 'body, byte for byte')
    })
  }
}

t.test('the whole OpenAPI document is the same', async (t) => {
  const [expected, actual] = await Promise.all([typed, declared].map(async (app) => (await app.inject({ method: 'GET', url: '/openapi.json' })).json()))
  t.ok(Object.hasOwn(expected.paths, '/products/{sku}'))
  t.strictSame(actual, expected)
})

t.test('the reservation acts alike: sent to the same upstream, refused alike, answered as the same record', async (t) => {
  const reserve = async (app: FastifyInstance, sku: string, body: object, key: string): Promise<LightMyRequestResponse> =>
    await app.inject({ method: 'POST', url: `/products/${sku}/reservations`, payload: body, headers: { authorization: `Bearer ${KEY}`, 'x-request-id': 'compared', 'x-audience': 'agent', 'idempotency-key': key } })
  for (const [sku, body] of [['SKU-00010', { quantity: 1 }], ['SKU-00002', { quantity: 0 }], ['SKU-99999', { quantity: 1 }]] as const) {
    const [expected, actual] = [await reserve(typed, sku, body, `typed-${sku}`), await reserve(declared, sku, body, `declared-${sku}`)]
    t.equal(actual.statusCode, expected.statusCode, `${sku}: status`)
    t.equal(actual.body, expected.body, `${sku}: refused byte for byte`)
  }
  const [expected, actual] = [await reserve(typed, 'SKU-00002', { quantity: 3 }, 'typed'), await reserve(declared, 'SKU-00002', { quantity: 3 }, 'declared')]
  t.equal(actual.statusCode, 201)
  t.equal(expected.statusCode, 201)
  const { reservation_id: _a, reserved_at: _at, ...made } = actual.json()
  const { reservation_id: _b, reserved_at: _bt, ...typedMade } = expected.json()
  t.strictSame(made, typedMade, 'the same record, but for the upstream\'s id and instant')
  const again = await reserve(declared, 'SKU-00002', { quantity: 3 }, 'declared')
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.body, actual.body)
})
