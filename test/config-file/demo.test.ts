// The demo catalogue declared in examples/demo.gateway.json serves what the TypeScript demo serves:
// every route, to both audiences, byte for byte, the same MCP tools, and the same OpenAPI document.
// The book text's lines are computed by a function, which a file cannot declare: that one mount is
// added in TypeScript beside the file's, so the whole document is compared, nothing left out.
import type { FastifyInstance } from 'fastify'
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
