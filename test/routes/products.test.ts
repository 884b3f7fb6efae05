// GET /products and /products/:sku: rows of another service (the demo upstream, paged like GitHub's
// API) served through the real app to both audiences, every body checked against its declared schema.
import t from 'tap'
import { productAt, startDemoUpstream } from '../../demo/upstream.js'
import { buildApp } from '../helpers/app.js'
import { rawGet } from '../helpers/raw-get.js'

/** Not a multiple of the upstream's page size (100), so the last page is short. */
const ROWS = 437
const TOKEN = 'upstream-token-0123456789'
const upstream = await startDemoUpstream({ rows: ROWS, token: TOKEN })
t.teardown(async () => { await upstream.close() })
const { app, checkedGet } = await buildApp(t, { upstreamUrl: upstream.url, upstreamToken: TOKEN })

const AGENT = { 'x-audience': 'agent' } as const

/** The product as the record declares it: the upstream's fields, the price mapped from `pricing`. */
function declared (i: number): Record<string, unknown> {
  const { sku, name, pricing, listed_at: listedAt, availability, warehouse_bin: bin } = productAt(i)
  return { sku, name, price: pricing.amount_cents, listed_at: listedAt, availability, warehouse_bin: bin }
}

const skus = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => productAt(from + i).sku)

t.beforeEach(() => {
  Object.assign(upstream.faults, { latencyMs: 0, fail: 0, throttle: 0, reset: 0, malformed: 0, mismatch: 0, hang: 0 })
  upstream.requests.clear()
})

t.test('a plain client gets every product as the record declares it, in the upstream\'s order', async (t) => {
  const res = await checkedGet(t, '/products', {})
  t.equal(res.statusCode, 200)
  const products = res.json() as Array<Record<string, unknown>>
  t.equal(products.length, ROWS)
  t.strictSame(products[0], declared(1))
  t.strictSame(products.at(-1), declared(ROWS))
  t.strictSame(products.map((p) => p.sku), skus(1, ROWS))
  t.equal(upstream.requests.count, 5, 'five upstream pages of 100')
})

t.test('an agent gets a projected page with no total: has_more is the upstream\'s next', async (t) => {
  const res = await checkedGet(t, '/products', AGENT)
  t.equal(res.statusCode, 200)
  const page = res.json()
  t.notOk('total_products' in page, 'no total is guessed')
  t.match(page, { has_more: true, returned: 20, offset: 0, limit: 20, next_offset: 20 })
  const first = productAt(1)
  t.strictSame(Object.keys(page.items[0]).sort(), ['availability', 'listed_at', 'name', 'price', 'sku'])
  t.equal(page.items[0].sku, first.sku)
  t.match(page.items[0].price, /^EUR \d+\.\d\d$/)
  t.notOk(JSON.stringify(page).includes(first.warehouse_bin), 'the hidden bin never reaches an agent')
})

t.test('an agent walks the list to its end by next_offset alone, across misaligned pages', async (t) => {
  for (const limit of [37, 100, 200]) {
    const seen: string[] = []
    let offset: number | undefined = 0
    while (offset !== undefined) {
      const res = await checkedGet(t, `/products?offset=${offset}&limit=${limit}`, AGENT, '/products')
      const page = res.json() as { items: Array<{ sku: string }>, has_more: boolean, next_offset?: number }
      seen.push(...page.items.map((item) => item.sku))
      t.equal(page.has_more, page.next_offset !== undefined)
      offset = page.next_offset
    }
    t.strictSame(seen, skus(1, ROWS), `limit ${limit}: every product once, in order`)
  }
})

t.test('a limit over the ceiling is clamped and said; an offset past the end is an empty last page', async (t) => {
  const clamped = (await checkedGet(t, '/products?limit=500', AGENT, '/products')).json()
  t.match(clamped, { returned: 200, limit: 200, limit_clamped: true, has_more: true, next_offset: 200 })
  t.match(clamped.hint, /limit was clamped to the maximum of 200/)
  const past = (await checkedGet(t, '/products?offset=900', AGENT, '/products')).json()
  t.match(past, { items: [], has_more: false, returned: 0, offset: 900 })
  t.notOk('next_offset' in past)
})

t.test('a product by its SKU: every field to a plain client, projected to an agent, 404 when the upstream has none', async (t) => {
  const plain = await checkedGet(t, '/products/SKU-00007', {}, '/products/:sku')
  t.strictSame(plain.json(), declared(7))
  const agent = await checkedGet(t, '/products/SKU-00007', AGENT, '/products/:sku')
  t.equal(agent.json().sku, 'SKU-00007')
  t.notOk('warehouse_bin' in agent.json())
  const missing = await checkedGet(t, '/products/SKU-99999', AGENT, '/products/:sku')
  t.equal(missing.statusCode, 404)
})

t.test('a dot segment is never a SKU: refused naming it, and nothing is asked of the upstream', async (t) => {
  // Over a socket, the path exactly as sent: a URL parser (inject's included) would resolve the dots
  // away before the gateway saw them. The SKU's pattern refuses them; pathSegment would too
  // (test/config-file/upstream-path.test.ts).
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  for (const sku of ['..', '.', '%2e%2e', '%2E.', '.%2e', '%2e']) {
    for (const headers of [{}, AGENT]) {
      const { status, body } = await rawGet(address, `/products/${sku}`, headers)
      t.equal(status, 400, sku)
      t.strictSame(Object.keys(body.errors as object), ['sku'], sku)
    }
  }
  t.equal(upstream.requests.count, 0, 'the upstream was never called')
})

t.test('the gateway\'s own token goes upstream; the caller\'s key never does', async (t) => {
  await app.inject({ url: '/products?limit=1', headers: { ...AGENT, authorization: 'Bearer caller-key-0123456789abcdef' } })
  const sent = upstream.requests.recent.map((request) => request.headers.authorization)
  t.ok(sent.length > 0)
  t.ok(sent.every((authorization) => authorization === `Bearer ${TOKEN}`))
})

t.test('upstream faults are problems with registry types, and say nothing of the upstream\'s body', async (t) => {
  const cases = [
    { faults: { reset: 3 }, status: 502, type: 'upstream-unreachable' },
    { faults: { fail: 3 }, status: 502, type: 'upstream-failed' },
    { faults: { malformed: 1 }, status: 502, type: 'upstream-failed' },
    { faults: { mismatch: 1 }, status: 502, type: 'upstream-failed', detail: /price/ },
    { faults: { throttle: 1, retryAfter: 120 }, status: 503, type: 'upstream-unavailable', retryAfter: '120' },
    // An upstream asking for an hour is not believed: the caller is told at most 300 s.
    { faults: { throttle: 1, retryAfter: 3600 }, status: 503, type: 'upstream-unavailable', retryAfter: '300' }
  ]
  for (const { faults, status, type, detail, retryAfter } of cases) {
    for (const headers of [{}, AGENT]) {
      Object.assign(upstream.faults, faults)
      const res = await checkedGet(t, '/products/SKU-00001', headers, '/products/:sku')
      t.equal(res.statusCode, status, JSON.stringify(faults))
      t.equal(res.json().type, `urn:audience-gateway:problem:${type}`)
      if (detail !== undefined) t.match(res.json().detail, detail)
      if (retryAfter !== undefined) t.equal(res.headers['retry-after'], retryAfter)
      t.notMatch(res.body, /truncated|amount_cents|"error"/i, 'nothing of the upstream\'s own answer')
      // A success between cases: the breaker counts consecutive failures, and this test is not about it.
      Object.assign(upstream.faults, { throttle: 0 })
      t.equal((await app.inject({ url: '/products/SKU-00002' })).statusCode, 200)
    }
  }
})
