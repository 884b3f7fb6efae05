// /metrics: refused without a key carrying the `metrics` scope, and the figures it shows move as
// requests are served, read by parsing the scrape (test/helpers/prometheus.ts), never by grepping it.
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { startDemoUpstream } from '../../demo/upstream.js'
import { buildApp, KEY } from '../helpers/app.js'
import { parseExposition, type Scrape } from '../helpers/prometheus.js'
import { processMetrics } from '../../src/observe/metrics.js'

const METRICS_KEY = 'metrics-key-0123456789abcdef'
const READER_KEY = 'reader-key-0123456789abcdef'
const SCRAPER = { authorization: `Bearer ${METRICS_KEY}` }
const AUTH = { authorization: `Bearer ${KEY}` }
const apiKeys = [KEY, { key: METRICS_KEY, scopes: ['metrics'] }, { key: READER_KEY, scopes: ['books:read'] }]

t.test('/metrics is for a key with the metrics scope only, and hidden from the document', async (t) => {
  const { app } = await buildApp(t, { apiKeys })
  const none = await app.inject({ url: '/metrics' })
  t.equal(none.statusCode, 401, 'no key: 401')
  t.equal(none.json().type, 'urn:audience-gateway:problem:unauthorized')
  const other = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${READER_KEY}` } })
  t.equal(other.statusCode, 403, 'a key without the scope: 403')
  t.match(other.headers['www-authenticate'], /scope="metrics"/)
  const scraped = await app.inject({ url: '/metrics', headers: SCRAPER })
  t.equal(scraped.statusCode, 200)
  t.match(scraped.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const everyScope = await app.inject({ url: '/metrics', headers: AUTH })
  t.equal(everyScope.statusCode, 200, 'a key with every scope may scrape too')
  const document = (await app.inject({ url: '/openapi.json' })).json()
  t.notOk('/metrics' in document.paths, 'not in the published document')
})

t.test('the figures move as requests are served', async (t) => {
  const { app } = await buildApp(t, { apiKeys })
  const scrape = async (): Promise<Scrape> => parseExposition((await app.inject({ url: '/metrics', headers: SCRAPER })).body)
  const before = await scrape()
  t.equal(before.types.get('gateway_requests_total'), 'counter')
  t.equal(before.types.get('gateway_request_duration_seconds'), 'histogram')
  t.ok(before.value('process_cpu_user_seconds_total') > 0, 'the process\'s own metrics')
  t.ok(before.types.has('nodejs_eventloop_lag_seconds'))

  const plain = await app.inject({ url: '/books', headers: AUTH })
  t.equal(plain.statusCode, 200)
  const books = plain.json().length
  const agent = await app.inject({ url: '/books?limit=1000', headers: { ...AUTH, 'x-audience': 'agent' } })
  t.equal(agent.statusCode, 200)
  const clamped = await app.inject({ url: '/ledger?limit=1000', headers: { 'x-audience': 'agent' } })
  t.equal(clamped.json().limit_clamped, true)
  const again = await app.inject({ url: '/books?limit=2', headers: { ...AUTH, 'x-audience': 'agent' } })
  t.equal(again.statusCode, 200)
  t.equal((await app.inject({ url: '/books/99', headers: AUTH })).statusCode, 404)
  t.equal((await app.inject({ url: '/books' })).statusCode, 401)
  const mcp = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listBooks', arguments: { limit: 3 } } })
  })
  t.equal(mcp.statusCode, 200)
  t.equal((await app.inject({ url: '/nowhere' })).statusCode, 404)
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200)
  t.equal((await app.inject({ url: '/openapi.json' })).statusCode, 200)
  const huge = await app.inject({ method: 'POST', url: '/mcp', headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: `{"a":"${'x'.repeat(70_000)}"}` })
  t.equal(huge.statusCode, 413)
  const after = await scrape()

  const moved = (name: string, labels: Record<string, string>): number => after.value(name, labels) - before.value(name, labels)
  t.equal(moved('gateway_requests_total', { operation: 'unrouted', audience: 'none', status_class: '4xx' }), 1, 'no route')
  t.equal(moved('gateway_requests_total', { operation: 'checkLiveness', audience: 'none', status_class: '2xx' }), 1, 'a probe')
  t.equal(moved('gateway_requests_total', { operation: 'other', audience: 'none', status_class: '2xx' }), 1, 'the document')
  t.equal(moved('gateway_refusals_total', { operation: 'other', code: 'other' }), 1, 'a problem outside the registry')
  t.equal(moved('gateway_requests_total', { operation: 'listBooks', audience: 'plain', status_class: '2xx' }), 1, 'the plain list')
  t.equal(moved('gateway_requests_total', { operation: 'listBooks', audience: 'agent', status_class: '2xx' }), 2, 'the agent pages')
  t.equal(moved('gateway_requests_total', { operation: 'getBook', audience: 'plain', status_class: '4xx' }), 1, 'the missing book')
  t.equal(moved('gateway_requests_total', { operation: 'listBooks', audience: 'plain', status_class: '4xx' }), 1, 'the call without a key')
  t.equal(moved('gateway_requests_total', { operation: 'listBooks', audience: 'mcp', status_class: '2xx' }), 1, 'the tool call, by its tool')
  t.equal(moved('gateway_request_duration_seconds_count', { operation: 'listBooks', audience: 'agent' }), 2)
  t.ok(moved('gateway_request_duration_seconds_sum', { operation: 'listBooks', audience: 'agent' }) > 0)
  t.equal(moved('gateway_request_duration_seconds_bucket', { operation: 'listBooks', audience: 'agent', le: '+Inf' }), 2)
  t.equal(moved('gateway_rows_served_total', { operation: 'listBooks', audience: 'plain' }), books, 'every row of the plain list')
  t.equal(moved('gateway_rows_served_total', { operation: 'listBooks', audience: 'agent' }), books + 2, 'the agent pages\' rows')
  t.equal(moved('gateway_rows_served_total', { operation: 'listBooks', audience: 'mcp' }), 3, 'the tool call\'s rows')
  t.equal(moved('gateway_clamps_total', { operation: 'listLedgerEntries' }), 1, 'the clamped window')
  t.equal(moved('gateway_rows_served_total', { operation: 'listLedgerEntries', audience: 'agent' }), 500, 'served at the ceiling')
  t.equal(moved('gateway_refusals_total', { operation: 'getBook', code: 'AG_NOT_FOUND' }), 1)
  t.equal(moved('gateway_refusals_total', { operation: 'listBooks', code: 'AG_UNAUTHORIZED' }), 1)
  t.equal(moved('gateway_count_cache_total', { outcome: 'miss' }), 2, 'the first page of each list counted')
  t.equal(moved('gateway_count_cache_total', { outcome: 'hit' }), 2, 'the next ones remembered, the tool call\'s included')
  t.equal(after.value('gateway_store_readers_in_use'), 0, 'no reader held between requests')
  t.equal(after.value('gateway_store_readers_waiting'), 0)
  t.ok(after.types.has('gateway_store_readers_in_use'))
})

t.test('bytes are those written to the socket, headers included', async (t) => {
  const { app } = await buildApp(t, { apiKeys })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const scrape = async (): Promise<Scrape> => parseExposition(await (await fetch(`${origin}/metrics`, { headers: SCRAPER })).text())
  const before = await scrape()
  const plain = await fetch(`${origin}/books`, { headers: AUTH })
  const body = Buffer.from(await plain.arrayBuffer())
  const after = await scrape()
  const written = after.value('gateway_response_bytes_total', { operation: 'listBooks', audience: 'plain' }) - before.value('gateway_response_bytes_total', { operation: 'listBooks', audience: 'plain' })
  t.ok(written > body.length, `${written} bytes: the body's ${body.length} and the headers`)
  t.ok(written < body.length + 4096, 'and no more than a response\'s headers besides')
})

t.test('upstream calls are counted by origin and outcome, and timed', async (t) => {
  const upstream = await startDemoUpstream({ port: 0 })
  t.after(async () => { await upstream.close() })
  const { app } = await buildApp(t, { apiKeys, upstreamUrl: upstream.url })
  const scrape = async (): Promise<Scrape> => parseExposition((await app.inject({ url: '/metrics', headers: SCRAPER })).body)
  const before = await scrape()
  t.equal((await app.inject({ url: '/products?limit=2', headers: { 'x-audience': 'agent' } })).statusCode, 200)
  t.equal((await app.inject({ url: '/products/SKU-00001' })).statusCode, 200)
  await upstream.close()
  const down = await app.inject({ url: '/products/SKU-00002' })
  t.equal(down.statusCode, 502)
  const after = await scrape()
  const origin = new URL(upstream.url).origin
  const moved = (name: string, labels: Record<string, string>): number => after.value(name, labels) - before.value(name, labels)
  t.equal(moved('gateway_upstream_calls_total', { upstream: origin, outcome: 'ok' }), 2)
  t.equal(moved('gateway_upstream_calls_total', { upstream: origin, outcome: 'refused' }), 1)
  t.equal(moved('gateway_upstream_call_duration_seconds_count', { upstream: origin, outcome: 'ok' }), 2)
  t.equal(moved('gateway_refusals_total', { operation: 'getProduct', code: 'AG_UPSTREAM_UNREACHABLE' }), 1)
})

t.test('apps served in turn by one process share its own metrics, and each counts only its requests', async (t) => {
  const shared = processMetrics()
  const { app: first } = await buildApp(t, { apiKeys, processMetrics: shared })
  const { app: second } = await buildApp(t, { apiKeys, processMetrics: shared })
  t.equal((await first.inject({ url: '/books', headers: AUTH })).statusCode, 200)
  const scrape = async (app: typeof first): Promise<Scrape> => parseExposition((await app.inject({ url: '/metrics', headers: SCRAPER })).body)
  const [one, two] = [await scrape(first), await scrape(second)]
  for (const scraped of [one, two]) {
    t.equal(scraped.samples.filter((sample) => sample.name === 'process_cpu_user_seconds_total').length, 1, 'the process\'s metrics, listed once')
  }
  t.equal(one.value('gateway_requests_total', { operation: 'listBooks', audience: 'plain', status_class: '2xx' }), 1, 'the first app counts its request')
  t.equal(two.value('gateway_requests_total', { operation: 'listBooks', audience: 'plain', status_class: '2xx' }), 0, 'the second has served none')
})
