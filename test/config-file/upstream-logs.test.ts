// What an upstream source logs, served through the app (the demo's products file): every line names
// the request that caused it (`reqId`), as the answer's X-Request-Id and the problem's request_id
// do, over HTTP and MCP alike; a row that does not match is logged by its field and where it is in
// the upstream's item, never by its value.
import { readFile } from 'node:fs/promises'
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import fp from 'fastify-plugin'
import { pino } from 'pino'
import t, { type Test } from 'tap'
import { loadDeclarationFile } from '../../src/config-file/index.js'
import declaredApp from '../../src/declared-app.js'
import { productAt, startDemoUpstream } from '../../demo/upstream.js'
import { REQUEST_ID_META } from '../../src/mcp/tools.js'
import { generationOptions, loggerOptions } from '../../src/server.js'
import { AUTH, KEY } from '../helpers/app.js'

const upstream = await startDemoUpstream({ rows: 250 })
t.teardown(async () => { await upstream.close() })

interface Line { readonly reqId?: string, readonly msg: string, readonly [key: string]: unknown }

/** Every line the app logs, parsed, as the process would write them. */
const lines: Line[] = []
const destination = new Writable({
  write (chunk: Buffer, _encoding, done) {
    lines.push(JSON.parse(chunk.toString('utf8')) as Line)
    done()
  }
})

async function build (): Promise<FastifyInstance> {
  const path = 'examples/products.gateway.json'
  const file = loadDeclarationFile(path, await readFile(path, 'utf8'))
  // As server.ts builds a generation: its limits and request ids, this logger.
  const app = Fastify(generationOptions('info', pino(loggerOptions('info'), destination)))
  t.teardown(async () => { await app.close() })
  await app.register(fp(declaredApp), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], loadShedding: { maxEventLoopDelay: 0 }, file, env: { UPSTREAM_URL: upstream.url } })
  await app.ready()
  return app
}

const app = await build()

t.beforeEach(() => {
  lines.length = 0
  Object.assign(upstream.faults, { fail: 0, failStatus: 503, mismatch: 0 })
})

/** The lines the upstream source and its client logged. */
function upstreamLines (): Line[] {
  return lines.filter(({ msg }) => msg.startsWith('upstream'))
}

/** The id the answer names, in its header and its problem body alike. */
function answeredId (t: Test, res: LightMyRequestResponse): string {
  const id = res.headers['x-request-id'] as string
  t.equal(res.json().request_id, id, 'the problem names the request its header names')
  return id
}

t.test('an upstream failing every attempt: each attempt\'s line names the request', async (t) => {
  upstream.faults.fail = 3
  const res = await app.inject({ method: 'GET', url: '/products/SKU-00001', headers: { 'x-request-id': 'caller-chosen-1' } })
  t.equal(res.statusCode, 502)
  t.equal(answeredId(t, res), 'caller-chosen-1')
  const told = upstreamLines()
  t.strictSame(told.map(({ msg, attempt }) => [msg, attempt]), [['upstream call failed', 1], ['upstream call failed', 2], ['upstream call failed', 3]])
  t.strictSame(told.map(({ reqId }) => reqId), Array(3).fill('caller-chosen-1'))
})

t.test('a row that does not match, for an agent, a plain client and a record: named by the request, its field and where it is, never its value', async (t) => {
  for (const [url, headers, path] of [
    ['/products?limit=5', { 'x-audience': 'agent' }, /^\/page\/products\?/],
    ['/products', {}, /^\/page\/products\?/],
    ['/products/SKU-00002', {}, /^\/products\/SKU-00002$/]
  ] as const) {
    lines.length = 0
    upstream.faults.mismatch = 1
    const res = await app.inject({ method: 'GET', url, headers })
    t.equal(res.statusCode, 502, url)
    t.match(res.json().detail, /: price must be integer\.$/)
    const id = answeredId(t, res)
    const told = upstreamLines()
    t.match(told, [{ reqId: id, msg: 'upstream row does not match the declared record', origin: upstream.url, path, field: 'price', itemPath: 'pricing.amount_cents', keyword: 'type' }], url)
    t.equal(told.length, 1)
    const mismatched = String(productAt(url.endsWith('2') ? 2 : 1).pricing.amount_cents)
    t.notMatch(JSON.stringify(told), `"${mismatched}"`, 'never the value')
  }
})

t.test('an MCP tool call: the same, its request named in the refusal', async (t) => {
  upstream.faults.mismatch = 1
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...AUTH, host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': 'tool-call-1' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listProducts', arguments: { limit: 5 } } }
  })
  t.equal(res.json().result._meta[REQUEST_ID_META], 'tool-call-1')
  t.match(upstreamLines(), [{ reqId: 'tool-call-1', msg: 'upstream row does not match the declared record', field: 'price' }])
})

// Last: the circuit stays open after it.
t.test('the circuit opens in the log of the request whose failure opened it', async (t) => {
  upstream.faults.fail = 5
  const first = await app.inject({ method: 'GET', url: '/products/SKU-00003', headers: { 'x-request-id': 'first-call' } })
  const second = await app.inject({ method: 'GET', url: '/products/SKU-00003', headers: { 'x-request-id': 'second-call' } })
  t.strictSame([first.statusCode, second.statusCode], [502, 503])
  const told = upstreamLines()
  t.strictSame(told.map(({ reqId, msg }) => `${String(reqId)} ${msg}`), [
    ...Array(3).fill('first-call upstream call failed'),
    ...Array(2).fill('second-call upstream call failed'),
    'second-call upstream circuit open'
  ])
})
