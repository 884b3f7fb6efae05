// The direct path (src/mcp/direct.ts) answers a plain 2025 tools/call as the SDK's Server would: the
// same message sent once plainly and once with an empty `_meta` (which leaves it to the SDK, and
// changes nothing of its meaning) is answered alike, byte for byte. And what it must not take, it
// leaves to the SDK: other messages, other revisions, requests whose headers the SDK refuses.
import t from 'tap'
import { directCallOf } from '../../src/mcp/direct.js'
import { AUTH, buildApp } from '../helpers/app.js'

const MCP_HEADERS = { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** Calls as a model sends them: served, clamped, refused for their arguments, not found, not permitted. */
const CALLS: Array<{ id: string | number, name: string, arguments?: Record<string, unknown> }> = [
  { id: 1, name: 'listBooks', arguments: { page: 2, limit: 2 } },
  { id: 'a-string-id', name: 'listBooks' },
  { id: 3, name: 'listBooks', arguments: { page: 99, limit: 1000 } },
  { id: 4, name: 'listLedgerEntries', arguments: { offset: 1235, limit: 10 } },
  { id: 5, name: 'getBook', arguments: { id: 1 } },
  { id: 6, name: 'getBook', arguments: { id: 99 } },
  { id: 7, name: 'getBookText', arguments: { id: 2, start_line: 3, end_line: 5 } },
  { id: 8, name: 'listInvoices', arguments: { limit: 'many', colour: 'red' } },
  { id: 9, name: 'listInvoices', arguments: {} },
  { id: 10, name: 'noSuchTool', arguments: {} },
  { id: 11, name: 'getBookCover', arguments: { id: 1, offset: 1000, max_bytes: 100 } },
  { id: 12, name: 'getBookCover', arguments: { id: 1, max_bytes: 100000 } }
]

t.test('a plain tools/call is answered as the SDK answers it, byte for byte', async (t) => {
  const { app } = await buildApp(t)
  const post = async (message: unknown, headers: Record<string, string> = MCP_HEADERS) => await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify(message) })
  for (const withKey of [true, false]) {
    const anyKey = withKey ? MCP_HEADERS : { 'content-type': MCP_HEADERS['content-type'], accept: MCP_HEADERS.accept }
    for (const { id, ...params } of CALLS) {
      // One request id for both: a refusal names it, and the two answers must be the same bytes.
      const headers = { ...anyKey, 'x-request-id': `call-${String(id)}` }
      const message = { jsonrpc: '2.0', id, method: 'tools/call', params }
      const direct = await post(message, headers)
      const bySdk = await post({ ...message, params: { ...params, _meta: {} } }, headers)
      const what = `${params.name} ${JSON.stringify(params.arguments)}${withKey ? '' : ', no key'}`
      t.equal(direct.statusCode, bySdk.statusCode, `${what}: the same status`)
      t.equal(direct.headers['content-type'], bySdk.headers['content-type'], `${what}: the same media type`)
      t.equal(direct.body, bySdk.body, `${what}: the same message`)
    }
  }
  // The comparison is worth something only if the SDK answered these calls: it did, in its words.
  const unknown = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'noSuchTool' } })
  t.match(JSON.parse(unknown.body), { error: { code: -32602, message: /Unknown tool: noSuchTool/ } })
})

t.test('requests the SDK would refuse are not answered directly', async (t) => {
  const { app } = await buildApp(t)
  const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listBooks', arguments: {} } })
  const post = async (headers: Record<string, string>) => await app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, ...headers }, payload: call })
  t.equal((await post({ accept: 'application/json' })).statusCode, 406, 'an Accept without the event stream')
  t.equal((await post({ accept: 'text/event-stream' })).statusCode, 406, 'an Accept without JSON')
  t.equal((await post({ 'content-type': 'text/plain' })).statusCode, 415, 'a body that is not JSON')
  const { 'content-type': _json, ...bare } = MCP_HEADERS
  const untyped = await app.inject({ method: 'POST', url: '/mcp', headers: bare })
  t.equal(untyped.statusCode, 415, 'no Content-Type, no body')
  const unsupported = await post({ 'mcp-protocol-version': '1999-01-01' })
  t.equal(unsupported.statusCode, 400, 'a revision nobody serves')
  t.match(JSON.parse(unsupported.body), { error: { message: /Unsupported protocol version: 1999-01-01/ } })
  for (const revision of ['2025-11-25', '2025-06-18', '2025-03-26']) {
    const served = await post({ 'mcp-protocol-version': revision })
    t.equal(served.statusCode, 200, `the ${revision} revision is served`)
    t.match(JSON.parse(served.body), { jsonrpc: '2.0', id: 1, result: { structuredContent: { items: Array } } })
  }
})

t.test('directCallOf takes exactly a plain tools/call', async (t) => {
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'listBooks', arguments: { limit: 1 } } }
  t.strictSame(directCallOf(call), { id: 7, name: 'listBooks', arguments: { limit: 1 } })
  t.strictSame(directCallOf({ ...call, id: 'x', params: { name: 'listBooks' } }), { id: 'x', name: 'listBooks', arguments: {} }, 'no arguments: none')
  const others: Array<[string, unknown]> = [
    ['not an object', 'tools/call'],
    ['null', null],
    ['a batch', [call]],
    ['another member', { ...call, extra: true }],
    ['another version', { ...call, jsonrpc: '1.0' }],
    ['another method', { ...call, method: 'tools/list' }],
    ['a notification', { jsonrpc: '2.0', method: 'tools/call', params: call.params }],
    ['a null id', { ...call, id: null }],
    ['a fractional id', { ...call, id: 1.5 }],
    ['an id past the safe integers', { ...call, id: 2 ** 53 }],
    ['a boolean id', { ...call, id: true }],
    ['no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
    ['params an array', { ...call, params: [] }],
    ['a _meta', { ...call, params: { ...call.params, _meta: {} } }],
    ['a task', { ...call, params: { ...call.params, task: { ttl: 1 } } }],
    ['a name not a string', { ...call, params: { name: 1 } }],
    ['arguments an array', { ...call, params: { name: 'listBooks', arguments: [] } }],
    ['arguments null', { ...call, params: { name: 'listBooks', arguments: null } }],
    ['arguments a string', { ...call, params: { name: 'listBooks', arguments: 'limit=1' } }]
  ]
  for (const [what, body] of others) t.equal(directCallOf(body), undefined, what)
})
