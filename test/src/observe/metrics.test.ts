// The request and upstream histograms keep their observations in batches and hand them to
// prom-client a batch at a time and when scraped: what a scrape shows is every observation made,
// each once, as prom-client's own histogram would show it.
import { Registry } from 'prom-client'
import t, { type Test } from 'tap'
import { gatewayMetrics, OBSERVATIONS_BATCHED } from '../../../src/observe/metrics.js'
import { parseExposition, type Scrape } from '../../helpers/prometheus.js'

const BUCKETS = ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']

/** Seconds spread over every bucket, and past the last: the i-th observation's. */
const seconds = (i: number): number => [0.0004, 0.001, 0.003, 0.02, 0.07, 0.3, 0.9, 2, 7, 12][i % 10]

function metrics (): { record: ReturnType<typeof gatewayMetrics>, scrape: () => Promise<Scrape> } {
  // A process registry of its own: no default metrics collected for a unit test.
  const record = gatewayMetrics(() => ({ inUse: 0, waiting: 0 }), new Registry())
  return { record, scrape: async () => parseExposition(await record.registry.metrics()) }
}

/** What prom-client shows for `values`: a count per bucket (cumulative), their sum and count. */
function expected (values: readonly number[]): { buckets: number[], sum: number, count: number } {
  const bounds = BUCKETS.map((le) => le === '+Inf' ? Infinity : Number(le))
  return { buckets: bounds.map((bound) => values.filter((value) => value <= bound).length), sum: values.reduce((sum, value) => sum + value, 0), count: values.length }
}

function shows (t: Test, scrape: Scrape, name: string, labels: Record<string, string>, values: readonly number[]): void {
  const { buckets, sum, count } = expected(values)
  t.strictSame(BUCKETS.map((le) => scrape.value(`${name}_bucket`, { ...labels, le })), buckets, `${name} ${JSON.stringify(labels)}: every bucket`)
  t.equal(scrape.value(`${name}_count`, labels), count)
  t.ok(Math.abs(scrape.value(`${name}_sum`, labels) - sum) < 1e-6, `sum ${sum}`)
}

t.test('a request\'s duration is scraped as observed, fewer than a batch, several batches, and each once', async (t) => {
  const { record, scrape } = metrics()
  const agent: number[] = []
  const plain: number[] = []
  const many = 2 * OBSERVATIONS_BATCHED + 7
  for (let i = 0; i < many; i++) {
    agent.push(seconds(i))
    record.request('listBooks', 'agent', 200, seconds(i), 100)
    if (i % 700 === 0) {
      plain.push(seconds(i + 3))
      record.request('listBooks', 'plain', 200, seconds(i + 3), 100)
    }
  }
  const first = await scrape()
  shows(t, first, 'gateway_request_duration_seconds', { operation: 'listBooks', audience: 'agent' }, agent)
  shows(t, first, 'gateway_request_duration_seconds', { operation: 'listBooks', audience: 'plain' }, plain)
  t.equal(first.value('gateway_requests_total', { operation: 'listBooks', audience: 'agent', status_class: '2xx' }), many, 'the counters beside it')
  for (let i = 0; i < 5; i++) {
    agent.push(seconds(i + 1))
    record.request('listBooks', 'agent', 200, seconds(i + 1), 100)
  }
  shows(t, await scrape(), 'gateway_request_duration_seconds', { operation: 'listBooks', audience: 'agent' }, agent)
  shows(t, await scrape(), 'gateway_request_duration_seconds', { operation: 'listBooks', audience: 'plain' }, plain)
})

t.test('a duration that is no number is refused when observed, as prom-client refuses it, and the scrape goes on', async (t) => {
  const { record, scrape } = metrics()
  record.request('listBooks', 'agent', 200, 0.002, 100)
  t.throws(() => { record.request('listBooks', 'agent', 200, Number.NaN, 100) }, { name: 'TypeError', message: /not a valid number/ })
  t.throws(() => { record.upstream.call('http://127.0.0.1:9', 'ok', Number.POSITIVE_INFINITY) }, { name: 'TypeError' })
  shows(t, await scrape(), 'gateway_request_duration_seconds', { operation: 'listBooks', audience: 'agent' }, [0.002])
})

t.test('an upstream call\'s duration is scraped as observed', async (t) => {
  const { record, scrape } = metrics()
  const ok: number[] = []
  for (let i = 0; i < OBSERVATIONS_BATCHED + 1; i++) {
    ok.push(seconds(i))
    record.upstream.call('http://127.0.0.1:9', 'ok', seconds(i))
  }
  record.upstream.call('http://127.0.0.1:9', 'timeout', 10)
  const scraped = await scrape()
  shows(t, scraped, 'gateway_upstream_call_duration_seconds', { upstream: 'http://127.0.0.1:9', outcome: 'ok' }, ok)
  shows(t, scraped, 'gateway_upstream_call_duration_seconds', { upstream: 'http://127.0.0.1:9', outcome: 'timeout' }, [10])
})
