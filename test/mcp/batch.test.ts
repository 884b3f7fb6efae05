// A JSON-RPC batch (a body that is an array) is refused whole, before anything of it runs: one
// JSON-RPC error, HTTP 400, whatever the batch holds. Before, the SDK ran up to 100 calls of one for
// a single request's share of the rate limit, and answered them all in one body.
import t from 'tap'
import { AUTH, buildApp } from '../helpers/app.js'

const MCP_HEADERS = { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const REFUSED = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted; send one message per request.' } }

const call = (id: number, name = 'listLedgerEntries'): object => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { limit: 500, offset: id } } })

t.test('a batch of 100 calls is refused whole: nothing runs, no budget is spent, one call is still served', async (t) => {
  const queries: string[] = []
  const { app } = await buildApp(t, { onQuery: (sql) => { queries.push(sql) }, rateLimitMax: 3, rateLimitWindow: 600 })
  queries.length = 0
  const batch = JSON.stringify(Array.from({ length: 100 }, (_, id) => call(id)))
  for (let sent = 0; sent < 5; sent++) {
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: batch })
    t.equal(res.statusCode, 400)
    t.match(res.headers['content-type'], /^application\/json\b/)
    t.strictSame(res.json(), REFUSED)
    t.equal(res.headers['x-ratelimit-remaining'], undefined, 'refused before the rate limit counts it')
  }
  t.strictSame(queries, [], 'not one call of them reached the store')
  const one = await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: JSON.stringify(call(7)) })
  t.equal(one.statusCode, 200, 'a single call is served, with the budget whole')
  t.equal(one.headers['x-ratelimit-remaining'], '2')
  t.match(one.json(), { id: 7, result: { structuredContent: { offset: 7, limit: 500 } } })
  t.ok(queries.length > 0, 'and it read the store')
})

t.test('every kind of batch is refused alike, in every revision, with a key or without', async (t) => {
  const { app } = await buildApp(t)
  const notification = { jsonrpc: '2.0', method: 'notifications/initialized' }
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'batcher', version: '1' } } }
  const batches: Record<string, unknown[]> = {
    'one call': [call(1)],
    'no message': [],
    'notifications only': [notification, notification],
    'an initialize with a call': [initialize, call(2)],
    'a listing': [{ jsonrpc: '2.0', id: 3, method: 'tools/list' }],
    responses: [{ jsonrpc: '2.0', id: 4, result: {} }],
    'not messages at all': [1, 'two', null]
  }
  const { authorization: _key, ...anonymous } = MCP_HEADERS
  for (const [what, batch] of Object.entries(batches)) {
    for (const [how, headers] of Object.entries({ 'with a key': MCP_HEADERS, 'without a key': anonymous, 'naming 2025-03-26': { ...MCP_HEADERS, 'mcp-protocol-version': '2025-03-26' }, 'naming 2026-07-28': { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28' } })) {
      const res = await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify(batch) })
      t.equal(res.statusCode, 400, `${what}, ${how}`)
      t.strictSame(res.json(), REFUSED, `${what}, ${how}: the same words`)
    }
  }
})
