// The demo catalogue declared in examples/demo.gateway.json serves what the TypeScript demo serves:
// every route, to both audiences, byte for byte, the same MCP tools, and the same OpenAPI document.
// The book text's lines are computed by a function, which a file cannot declare: that one mount is
// added in TypeScript beside the file's, so the whole document is compared, nothing left out.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { mountBookText } from '../../routes/books/index.js'
import { AUTH, buildApp } from '../helpers/app.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'
import { sameValidator } from '../helpers/etag.js'

/** The TypeScript demo's text mount, as routes/books/index.ts declares it. */
async function bookTextMount (app: FastifyInstance): Promise<void> {
  mountBookText(app)
}

const { app: typed } = await buildApp(t)
const declared = await buildDeclaredApp(t, 'examples/demo.gateway.json', { also: bookTextMount })

const CALLS = [
  '/books', '/books?page=2&limit=2', '/books?limit=500', '/books?page=9', '/books/with-authors', '/books/with-authors?limit=1',
  '/books/1', '/books/2', '/books/3', '/books/99', '/books/x',
  '/invoices', '/invoices?limit=1&page=2', '/invoices?status=PAID', '/invoices?number_prefix=INV-2', '/invoices?status=paid',
  '/ledger', '/ledger?offset=1200&limit=100', '/ledger?posted_at_min=2026-03-01T00:00:00Z&posted_at_max=2026-03-02T00:00:00Z&limit=3', '/ledger?limit=1000', '/ledger?offset=5000', '/ledger?offset=-1',
  '/books?unknown=1', '/books?page=0'
]

// One request id for both apps: a problem body carries it, and the two answers are compared byte for byte.
const SAME_ID = { 'x-request-id': 'compared' } as const
const AUDIENCES = { plain: { ...AUTH, ...SAME_ID }, agent: { ...AUTH, ...SAME_ID, 'x-audience': 'agent' }, anonymous: SAME_ID } as const

for (const url of CALLS) {
  for (const [audience, headers] of Object.entries(AUDIENCES)) {
    t.test(`GET ${url} as ${audience}: the same answer`, async (t) => {
      const [expected, actual] = await Promise.all([typed, declared].map(async (app) => await app.inject({ method: 'GET', url, headers })))
      t.equal(actual.statusCode, expected.statusCode, 'status')
      t.equal(actual.headers['content-type'], expected.headers['content-type'], 'media type')
      sameValidator(t, actual.headers.etag, expected.headers.etag, 'ETag')
      t.equal(actual.body, expected.body, 'body, byte for byte')
    })
  }
}

t.test('the whole OpenAPI document is the same', async (t) => {
  const [expected, actual] = await Promise.all([typed, declared].map(async (app) => (await app.inject({ method: 'GET', url: '/openapi.json' })).json()))
  t.ok(Object.keys(expected.paths).length >= 6, 'the demo\'s paths are there')
  t.strictSame(actual, expected)
})

t.test('the same MCP tools', async (t) => {
  const list = async (app: FastifyInstance): Promise<unknown> => (await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...AUTH, host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' }
  })).body
  const [expected, actual] = await Promise.all([list(typed), list(declared)])
  t.match(expected, 'listLedgerEntries')
  t.equal(actual, expected)
})

t.test('the refund acts alike: its statements in one transaction, the same answers and the same store after', async (t) => {
  // Each app its own store: the file's statements and the TypeScript target refund each's own invoice.
  const { app: typedApp } = await buildApp(t)
  const declaredApp = await buildDeclaredApp(t, 'examples/demo.gateway.json', { also: bookTextMount })
  const refund = async (app: FastifyInstance, id: number, headers: Record<string, string>, body: object = { amount: '12.50', reason: 'Damaged' }): Promise<LightMyRequestResponse> =>
    await app.inject({ method: 'POST', url: `/invoices/${id}/refund`, payload: body, headers: { ...AUTH, ...SAME_ID, ...headers } })
  const steps: Array<[number, Record<string, string>, object?]> = [
    [8, { 'x-audience': 'agent', 'idempotency-key': 'k' }],
    [8, { 'idempotency-key': 'k' }],
    [8, {}],
    [7, { 'x-audience': 'agent' }],
    [9, {}],
    [8, { 'idempotency-key': 'k' }, { amount: '1.00', reason: 'Other' }],
    [8, {}, { amount: 12.5, reason: '' }]
  ]
  for (const [id, headers, body] of steps) {
    const [expected, actual] = [await refund(typedApp, id, headers, body), await refund(declaredApp, id, headers, body)]
    const step = `${id} ${JSON.stringify(headers)}`
    t.equal(actual.statusCode, expected.statusCode, `${step}: status`)
    t.equal(actual.headers['idempotent-replayed'], expected.headers['idempotent-replayed'], `${step}: replayed alike`)
    t.equal(actual.body, expected.body, `${step}: body, byte for byte`)
  }
  for (const headers of [AUDIENCES.plain, AUDIENCES.agent]) {
    const [expected, actual] = await Promise.all([typedApp, declaredApp].map(async (app) => await app.inject({ url: '/invoices', headers })))
    t.equal(actual.body, expected.body, 'the invoices after')
  }
  const ledger = async (app: FastifyInstance): Promise<unknown> => (await app.inject({ url: '/ledger' })).json().slice(1240).map(({ posted_at: _at, ...entry }: Record<string, unknown>) => entry)
  t.strictSame(await ledger(declaredApp), await ledger(typedApp), 'one ledger entry each, the same but for the second it was posted')
  t.strictSame(await ledger(typedApp), [{ id: 1241, memo: 'Refund of INV-2: Damaged', amount: '-12.50', account_id: 13 }])
})
