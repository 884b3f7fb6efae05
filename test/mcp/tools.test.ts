// MCP through the SDK's own client over Streamable HTTP, against a listening app: every mount a tool,
// every schema compiles, every call answers what the HTTP agent variant answers, a list is walked to
// its end by its envelope alone (across two replicas too: nothing is kept between requests), and
// every refusal comes back as a tool result a model can act on. Run again on PostgreSQL by
// test/mcp/postgres.test.ts.
import { REQUEST_ID_PATTERN } from '../../src/http/request-id.js'
import { REQUEST_ID_META } from '../../src/mcp/tools.js'
import type { AddressInfo } from 'node:net'
import { Client, ProtocolError, StreamableHTTPClientTransport, type Tool as ListedTool } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { AppOptions } from '../../demo/app.js'
import Fastify from 'fastify'
import { arraySource, gateway, signedIn } from '../../src/index.js'
import { setUpDemo } from '../../demo/catalogue.js'
import { serverOptions } from '../../src/server.js'
import { LedgerEntry } from '../../routes/ledger/entry.js'
import { createAjv } from '../helpers/ajv.js'
import { AGENT, buildApp, KEY } from '../helpers/app.js'

interface Running { app: FastifyInstance, url: URL }

async function listening (t: Test, options: Partial<AppOptions> = {}): Promise<Running> {
  const { app } = await buildApp(t, options)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return { app, url: new URL(`http://127.0.0.1:${port}/mcp`) }
}

/** The SDK's client, connected as a stock one would be, with a key or without; closed after the test. */
async function connect (t: Test, running: Running, headers: Record<string, string> = { Authorization: `Bearer ${KEY}` }): Promise<Client> {
  const client = new Client({ name: 'gateway-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(running.url, { requestInit: { headers } }))
  t.teardown(async () => { await client.close() })
  return client
}

type CallResult = Awaited<ReturnType<Client['callTool']>>

/** A refusal without its `_meta`, once that is checked to carry the request's id (a new one: the SDK's client sends none). */
function refusalOf (result: CallResult): CallResult {
  const { _meta: meta, ...rest } = result
  t.match(meta?.[REQUEST_ID_META], REQUEST_ID_PATTERN, 'the refusal names its request')
  return rest
}

function textOf (result: CallResult): string {
  const content = result.content as Array<{ type: string, text: string }>
  t.equal(content.length, 1)
  return content[0].text
}

const EXPECTED_TOOLS = ['getBook', 'getBookCover', 'getBookText', 'listBooks', 'listBooksWithAuthors', 'listInvoices', 'listLedgerEntries', 'refundInvoice']

/** What a read tool says of itself, and what the refund (an action) says. */
const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
const ACTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }

/** Arguments for each tool as a model would send them (JSON numbers), and the HTTP URL asking the same. */
const CALLS: Record<string, Array<{ args: Record<string, unknown>, url: string }>> = {
  getBook: [{ args: { id: 1 }, url: '/books/1' }],
  getBookCover: [{ args: { id: 1 }, url: '/books/1/cover' }, { args: { id: 2, offset: 4000, max_bytes: 4096 }, url: '/books/2/cover?offset=4000&max_bytes=4096' }],
  getBookText: [{ args: { id: 1 }, url: '/books/1/text' }, { args: { id: 2, start_line: 3, end_line: 5 }, url: '/books/2/text?start_line=3&end_line=5' }],
  listBooks: [{ args: {}, url: '/books' }, { args: { page: 2, limit: 2 }, url: '/books?page=2&limit=2' }, { args: { page: 99, limit: 1000 }, url: '/books?page=99&limit=1000' }],
  listBooksWithAuthors: [{ args: { limit: 1 }, url: '/books/with-authors?limit=1' }],
  listInvoices: [{ args: {}, url: '/invoices' }, { args: { status: 'PAID' }, url: '/invoices?status=PAID' }, { args: { number_prefix: 'INV-1', limit: 1 }, url: '/invoices?number_prefix=INV-1&limit=1' }],
  listLedgerEntries: [
    { args: {}, url: '/ledger' },
    { args: { offset: 1235, limit: 10 }, url: '/ledger?offset=1235&limit=10' },
    { args: { posted_at_min: '2026-01-02T01:00:00+01:00', posted_at_max: '2026-01-03T00:00:00Z', limit: 2 }, url: '/ledger?posted_at_min=2026-01-02T01:00:00%2B01:00&posted_at_max=2026-01-03T00:00:00Z&limit=2' }
  ]
}

t.test('with a key: every mount and action is a tool, in name order, described from its mount, the reads read-only', async (t) => {
  const running = await listening(t)
  const client = await connect(t, running)
  const { tools } = await client.listTools()
  t.strictSame(tools.map((tool) => tool.name), EXPECTED_TOOLS)
  const ajv = createAjv()
  for (const tool of tools) {
    t.ok(tool.title !== undefined && tool.title.length > 0, `${tool.name} has a title`)
    t.ok(tool.description !== undefined && tool.description.length > 0, `${tool.name} has a description`)
    t.strictSame(tool.annotations, tool.name === 'refundInvoice' ? ACTS : READ_ONLY)
    t.equal(tool.inputSchema.type, 'object')
    t.equal(tool.inputSchema.additionalProperties, false, `${tool.name}: its arguments are closed`)
    t.equal(tool.outputSchema?.type, 'object')
    t.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name}: its inputSchema compiles`)
    t.doesNotThrow(() => ajv.compile(tool.outputSchema as object), `${tool.name}: its outputSchema compiles`)
  }
  const listBooks = tools.find((tool) => tool.name === 'listBooks') as ListedTool
  t.match(listBooks.inputSchema.properties, {
    page: { type: 'integer', description: /from 1; clamped to the pages that exist\. Default: 1\./ },
    limit: { type: 'integer', description: /clamped to 1\.\.\d+\. Default: \d+\./ }
  }, 'paging parameters with their bounds and defaults stated')
  const getBook = tools.find((tool) => tool.name === 'getBook') as ListedTool
  t.strictSame(getBook.inputSchema.required, ['id'], 'a path parameter is required')
  const listInvoices = tools.find((tool) => tool.name === 'listInvoices') as ListedTool
  t.match(listInvoices.inputSchema.properties, {
    status: { type: 'string', enum: ['PENDING_REVIEW', 'LEGACY_REVIEW', 'PAID', 'REFUNDED'], description: /send the value, not what is shown/ },
    number_prefix: { type: 'string', minLength: 1 }
  }, 'the filters, as the document publishes them')
  const listLedgerEntries = tools.find((tool) => tool.name === 'listLedgerEntries') as ListedTool
  t.match(listLedgerEntries.inputSchema.properties, { posted_at_min: { type: 'string', format: 'date-time' }, posted_at_max: { type: 'string', format: 'date-time' } })
})

t.test('clients of the 2025 revisions and of the current one are served', async (t) => {
  const running = await listening(t)
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}` }
  for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    const res = await fetch(running.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
    })
    t.equal(res.status, 200, version)
    t.equal(res.headers.get('content-type'), 'application/json', `${version}: answered as one JSON message, not an event stream`)
    t.equal(res.headers.get('content-length'), String(Buffer.byteLength(await res.clone().text())), 'written whole, with its length')
    t.match(await res.text(), `"protocolVersion":"${version}"`, `${version} is agreed`)
  }
  const modern = new Client({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
  await modern.connect(new StreamableHTTPClientTransport(running.url, { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }))
  t.teardown(async () => { await modern.close() })
  t.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28', 'served in the newest revision, not by falling back to a 2025 one')
  const page = await modern.callTool({ name: 'listBooks', arguments: { limit: 1 } })
  t.match(page.structuredContent, { items: [{ id: 1 }], page: 1 }, 'a client negotiating the newest revision calls tools too')
})

t.test('a call answers what the HTTP agent variant answers, as structured content and as text', async (t) => {
  const running = await listening(t)
  const client = await connect(t, running)
  const tools = (await client.listTools()).tools.filter((tool) => tool.annotations?.readOnlyHint === true)
  const ajv = createAjv()
  t.strictSame(Object.keys(CALLS).sort(), tools.map((tool) => tool.name), 'every read is called')
  for (const tool of tools) {
    const validate = ajv.compile(tool.outputSchema as object)
    for (const { args, url } of CALLS[tool.name]) {
      const result = await client.callTool({ name: tool.name, arguments: args })
      t.notOk(result.isError, `${tool.name} ${JSON.stringify(args)}`)
      t.ok(validate(result.structuredContent), `${tool.name} ${JSON.stringify(args)}: valid against its outputSchema ${JSON.stringify(validate.errors)}`)
      const http = await running.app.inject({ url, headers: AGENT })
      t.equal(http.statusCode, 200, url)
      t.strictSame(result.structuredContent, http.json(), `${tool.name} ${JSON.stringify(args)} = GET ${url} as an agent`)
      t.strictSame(JSON.parse(textOf(result)), result.structuredContent, 'the text block carries the same JSON')
    }
  }
})

/** Walks the ledger by `next_offset` alone, each call to the next of `clients`; the ids seen. */
async function walkLedger (t: Test, clients: readonly Client[]): Promise<number[]> {
  const ids: number[] = []
  let args: Record<string, unknown> = { limit: 100 }
  for (let call = 0; call < 100; call++) {
    const { structuredContent } = await clients[call % clients.length].callTool({ name: 'listLedgerEntries', arguments: args })
    const page = structuredContent as { items: Array<{ id: number }>, has_more: boolean, next_offset?: number, hint?: string }
    ids.push(...page.items.map((item) => item.id))
    if (!page.has_more) return ids
    t.match(page.hint, new RegExp(`offset=${String(page.next_offset)}`), 'the hint says what to send')
    args = { offset: page.next_offset, limit: 100 }
  }
  throw new Error('the ledger never ended')
}

t.test('an agent reads an invoice whose refund is available, calls the tool it names, retries it safely, and reads the change', async (t) => {
  const running = await listening(t)
  const client = await connect(t, running)
  const refund = (await client.listTools()).tools.find((tool) => tool.name === 'refundInvoice') as ListedTool
  t.strictSame(refund.inputSchema.required, ['id', 'amount', 'reason'])
  t.match(refund.inputSchema.properties, { id: { type: 'integer' }, amount: { type: 'string' }, reason: { type: 'string' }, idempotency_key: { type: 'string', maxLength: 255 } })
  const validate = createAjv().compile(refund.outputSchema as object)
  const paid = (await client.callTool({ name: 'listInvoices', arguments: { status: 'PAID' } })).structuredContent as { items: Array<{ id: number, affordances: { refund: { available: boolean, action: string } } }> }
  t.strictSame(paid.items[0].affordances.refund, { available: true, action: 'refundInvoice' })
  const args = { id: paid.items[0].id, amount: '12.50', reason: 'Damaged', idempotency_key: 'mcp-refund-8' }
  const done = await client.callTool({ name: paid.items[0].affordances.refund.action, arguments: args })
  t.notOk(done.isError)
  t.ok(validate(done.structuredContent), JSON.stringify(validate.errors))
  t.match(done.structuredContent, { id: 8, status: 'Refunded', affordances: { refund: { available: false, code: 'not_paid' } } })
  t.notOk('etag' in (done.structuredContent as object), 'nothing hidden')
  t.strictSame(JSON.parse(textOf(done)), done.structuredContent, 'the text block is the structured content')
  const again = await client.callTool({ name: 'refundInvoice', arguments: args })
  t.strictSame(again.structuredContent, done.structuredContent, 'the retry is answered the first result, without acting again')
  const reused = await client.callTool({ name: 'refundInvoice', arguments: { ...args, amount: '1.00' } })
  t.equal(reused.isError, true)
  t.match(textOf(refusalOf(reused)), /^Idempotency key reused \(422\)/)
  const unavailable = await client.callTool({ name: 'refundInvoice', arguments: { id: 8, amount: '1.00', reason: 'Twice' } })
  t.equal(unavailable.isError, true)
  t.equal(textOf(refusalOf(unavailable)), 'Action unavailable (409): refundInvoice is not available on this record now: Only a paid invoice can be refunded. Nothing was done.\n- code: not_paid')
  const wrong = await client.callTool({ name: 'refundInvoice', arguments: { id: 7, amount: 12, idempotency_key: 'has space', extra: true } })
  t.equal(textOf(refusalOf(wrong)), [
    'Invalid arguments (400): The request has 4 invalid arguments: idempotency_key, reason, extra, amount.',
    '- idempotency_key: Must be 1 to 255 visible ASCII characters, such as a UUID.',
    '- reason: Required: pass a value.',
    '- extra: Unknown argument.',
    '- amount: Must be string.'
  ].join('\n'))
  const after = (await client.callTool({ name: 'listInvoices', arguments: { status: 'REFUNDED' } })).structuredContent as { items: Array<{ id: number }> }
  t.strictSame(after.items.map((invoice) => invoice.id), [8], 'the change is read back')
  const ledger = (await client.callTool({ name: 'listLedgerEntries', arguments: { offset: 1240 } })).structuredContent as { items: Array<{ memo: string }> }
  t.strictSame(ledger.items.map((entry) => entry.memo), ['Refund of INV-2: Damaged'], 'one ledger entry')
})

t.test('an agent walks the ledger to its end through next_offset: 1,240 distinct entries', async (t) => {
  const running = await listening(t)
  const ids = await walkLedger(t, [await connect(t, running)])
  t.equal(ids.length, 1240)
  t.equal(new Set(ids).size, 1240)
})

/** The arguments of the next window, read from an envelope alone (page, offset or lines), or undefined at the end. */
function nextOf (envelope: Record<string, unknown>, args: Record<string, unknown>): Record<string, unknown> | undefined {
  if (envelope.hasNext === true) return { ...args, page: (envelope.page as number) + 1 }
  if (envelope.has_more !== true) return undefined
  if (envelope.next_offset !== undefined) return { ...args, offset: envelope.next_offset }
  const size = (envelope.end_line as number) - (envelope.start_line as number)
  return { ...args, start_line: envelope.next_start_line, end_line: (envelope.next_start_line as number) + size }
}

t.test('every list and every text is walked to its end by its envelope alone, nothing twice', async (t) => {
  const running = await listening(t)
  const client = await connect(t, running)
  const walks: Array<{ name: string, args: Record<string, unknown>, items: (body: Record<string, unknown>) => unknown[], total: number }> = [
    { name: 'listBooks', args: { limit: 1 }, items: (body) => body.items as unknown[], total: 3 },
    { name: 'listBooksWithAuthors', args: { limit: 2 }, items: (body) => body.items as unknown[], total: 3 },
    { name: 'listInvoices', args: { limit: 1 }, items: (body) => body.items as unknown[], total: 2 },
    { name: 'listLedgerEntries', args: { limit: 500 }, items: (body) => body.items as unknown[], total: 1240 },
    { name: 'getBookText', args: { id: 1, start_line: 1, end_line: 100 }, items: (body) => body.lines as unknown[], total: 520 }
  ]
  for (const walk of walks) {
    const seen: unknown[] = []
    let args: Record<string, unknown> | undefined = walk.args
    for (let calls = 0; args !== undefined && calls < 50; calls++) {
      const result = await client.callTool({ name: walk.name, arguments: args })
      t.notOk(result.isError, `${walk.name} ${JSON.stringify(args)}`)
      const envelope = result.structuredContent as Record<string, unknown>
      seen.push(...walk.items(envelope).map((item) => JSON.stringify(item)))
      args = nextOf(envelope, args)
    }
    t.equal(args, undefined, `${walk.name}: the envelope says where it ends`)
    t.equal(seen.length, walk.total, `${walk.name}: every item, once`)
    if (walk.name !== 'getBookText') t.equal(new Set(seen).size, walk.total, `${walk.name}: nothing twice`)
  }
})

t.test('stateless: two replicas answer alternate calls of one walk, and it is the same walk', async (t) => {
  const replicas = [await listening(t), await listening(t)]
  const clients = [await connect(t, replicas[0]), await connect(t, replicas[1])]
  const ids = await walkLedger(t, clients)
  t.equal(new Set(ids).size, 1240)
  // A client connected to one replica goes on with the other: no session is asked for.
  const crossed = new Client({ name: 'crossed', version: '1.0.0' })
  await crossed.connect(new StreamableHTTPClientTransport(replicas[0].url, { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }))
  t.teardown(async () => { await crossed.close() })
  t.equal(crossed.transport?.sessionId, undefined, 'no session id is handed out')
})

t.test('refusals a model can act on are tool results with isError, in the problem\'s words', async (t) => {
  const running = await listening(t)
  const client = await connect(t, running)
  await client.listTools()
  const invalid = await client.callTool({ name: 'listLedgerEntries', arguments: { offset: '1e3', limit: 2.5, foo: 'x' } })
  t.equal(invalid.isError, true)
  t.match(textOf(invalid), /^Invalid arguments \(400\): The request has 3 invalid arguments: offset, limit, foo\.\n/)
  t.match(textOf(invalid), /- foo: Unknown argument\./)
  t.match(textOf(invalid), /- offset: Must be an integer written in plain decimal digits/)
  const display = await client.callTool({ name: 'listInvoices', arguments: { status: 'Paid', number_prefix: '' } })
  t.equal(textOf(display), 'Invalid arguments (400): The request has 2 invalid arguments: status, number_prefix.\n- status: Must be equal to one of the allowed values.\n- number_prefix: Must NOT have fewer than 1 characters.', 'the errors in the text itself: a tool result has no "errors" to point at')
  const flood = await client.callTool({ name: 'listLedgerEntries', arguments: Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`a${index}`, index])) })
  t.equal(textOf(flood).split('\n').length, 21, 'a call of 2,000 unknown arguments is told of the first 20 and how many more')
  t.match(textOf(flood), /a19 and 1980 more\.\n/)
  const missing = await client.callTool({ name: 'getBook', arguments: { id: 99 } })
  t.strictSame(refusalOf(missing), { content: [{ type: 'text', text: 'Not found (404): No record matches id 99.' }], isError: true })
  const noId = await client.callTool({ name: 'getBook', arguments: {} })
  t.match(textOf(noId), /- id: Required: pass a value\./)
  await running.app.store.db.destroy()
  const down = await client.callTool({ name: 'getBook', arguments: { id: 1 } })
  t.strictSame(refusalOf(down), { content: [{ type: 'text', text: 'Store unavailable (503): The store does not answer right now; retry shortly.' }], isError: true })
})

t.test('an unknown tool and a malformed message are protocol errors', async (t) => {
  const running = await listening(t)
  const client = await connect(t, running)
  const unknown = await client.callTool({ name: 'dropTables', arguments: {} }).then(() => undefined, (error: unknown) => error)
  t.ok(unknown instanceof ProtocolError, 'a JSON-RPC error, not a tool result')
  t.match(unknown, { code: -32602, message: /Unknown tool: dropTables\. tools\/list names the tools\./ })
  const malformed = await fetch(running.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}` }, body: '{"jsonrpc": "2.0", "id": 1, "method": ' })
  t.equal(malformed.status, 400)
  t.strictSame(await malformed.json(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not a JSON-RPC message.' } })
  const empty = await fetch(running.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}` }, body: '' })
  t.match(await empty.json(), { error: { code: -32700 } }, 'an empty body too')
})

t.test('valid JSON is a message whatever its keys: an argument named like a prototype is refused by its name', async (t) => {
  const running = await listening(t)
  for (const [name, revision] of [['__proto__', undefined], ['constructor', undefined], ['__proto__', '2025-06-18']] as const) {
    // Written by hand: a client's JSON.stringify would never send a `__proto__` key.
    const body = `{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "listLedgerEntries", "arguments": {"${name}": {}}}}`
    const res = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}`, ...(revision === undefined ? {} : { 'mcp-protocol-version': revision }) },
      body
    })
    t.equal(res.status, 200, name)
    const { result } = await res.json() as { result: CallResult }
    t.equal(result.isError, true, name)
    t.match(textOf(result), new RegExp(`^Invalid arguments \\(400\\): The request has an invalid argument: ${name}\\.\\n- ${name}: Unknown argument\\.$`), name)
  }
})

t.test('the same doors as HTTP: keys, permissions, Origin and Host', async (t) => {
  const running = await listening(t, { corsOrigins: ['https://app.example.com'], host: '127.0.0.1' })

  t.test('without a key a caller sees and calls only unrestricted tools', async (t) => {
    const anonymous = await connect(t, running, {})
    const { tools } = await anonymous.listTools()
    t.strictSame(tools.map((tool) => tool.name), ['getBookCover', 'listLedgerEntries'])
    const ledger = await anonymous.callTool({ name: 'listLedgerEntries' })
    t.notOk(ledger.isError)
    const books = await anonymous.callTool({ name: 'listBooks', arguments: {} })
    t.strictSame(refusalOf(books), { content: [{ type: 'text', text: 'Unauthorized (401): This tool needs a key: connect with "Authorization: Bearer <key>".' }], isError: true })
  })

  t.test('a wrong key is a 401 with WWW-Authenticate', async (t) => {
    const res = await fetch(running.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer not-a-key-0123456789' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
    t.equal(res.status, 401)
    t.equal(res.headers.get('www-authenticate'), 'Bearer realm="audience-gateway", error="invalid_token"')
    t.match(await res.json(), { type: 'urn:audience-gateway:problem:unauthorized' })
  })

  t.test('an Origin outside CORS_ORIGINS is refused, a listed one served', async (t) => {
    const ask = async (headers: Record<string, string>) => await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}`, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    })
    const evil = await ask({ origin: 'http://evil.example' })
    t.equal(evil.status, 403)
    t.match(await evil.json(), { type: 'urn:audience-gateway:problem:forbidden', detail: /Origin/ })
    const listed = await ask({ origin: 'https://app.example.com' })
    t.equal(listed.status, 200)
    t.equal(listed.headers.get('access-control-allow-origin'), 'https://app.example.com', 'with the CORS headers of any route')
    await listed.text()
    const local = await running.app.inject({ method: 'POST', url: '/mcp', headers: { host: 'localhost:3000', 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}` }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
    t.equal(local.statusCode, 200, 'a Host naming the loopback is served')
    const rebound = await running.app.inject({ method: 'POST', url: '/mcp', headers: { host: 'attacker.example', 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
    t.equal(rebound.statusCode, 403, 'bound to the loopback, a Host naming another name is refused (DNS rebinding)')
    t.match(rebound.json(), { detail: /Host header/ })
  })
})

t.test('a key without a tool\'s scope does not see it listed, and a call of it is a tool result naming the scope', async (t) => {
  const LEDGER = 'ledger-reader-0123456789'
  const running = await listening(t, { apiKeys: [KEY, { key: LEDGER, scopes: ['ledger:read'] }] })
  const scoped = await connect(t, running, { Authorization: `Bearer ${LEDGER}` })
  const { tools } = await scoped.listTools()
  t.strictSame(tools.map((tool) => tool.name), EXPECTED_TOOLS.filter((name) => name !== 'listInvoices' && name !== 'refundInvoice'))
  const invoices = await scoped.callTool({ name: 'listInvoices', arguments: {} })
  t.strictSame(refusalOf(invoices), { content: [{ type: 'text', text: 'Forbidden (403): This key may not call this tool: it lacks the scope "invoices:read"; use a key that carries it.' }], isError: true })
  const full = await connect(t, running)
  t.ok((await full.listTools()).tools.some((tool) => tool.name === 'listInvoices'), 'a key configured without scopes carries every scope')
})

t.test('a check refusing a key hides its tool, a call of it is a tool result naming the check; a defect is a 500 result, logged', async (t) => {
  const nobody = { name: 'nobody', needsPrincipal: true, allows: () => false }
  const errors: Array<Record<string, unknown>> = []
  const app = Fastify({ ...serverOptions('error'), logger: { level: 'error', stream: { write: (line: string) => { errors.push(JSON.parse(line) as Record<string, unknown>) } } } })
  t.teardown(async () => { await app.close() })
  await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], setUp: setUpDemo, loadShedding: { maxEventLoopDelay: 0 } })
  await app.register(async (scope) => {
    scope.mount({
      kind: 'list',
      name: 'listSecrets',
      url: '/secrets',
      summary: 'List what no key may read',
      declaration: LedgerEntry,
      source: arraySource([]),
      permissions: [nobody],
      paging: { style: 'offset', unit: 'secrets' }
    })
    const broken = async (): Promise<never> => { throw new Error('secret connection string postgres://u:p@db') }
    scope.mount({
      kind: 'list',
      name: 'listBroken',
      url: '/broken',
      summary: 'A list whose source fails',
      declaration: LedgerEntry,
      source: { count: broken, slice: broken, stream: () => ({ [Symbol.asyncIterator]: () => ({ next: broken }) }) },
      permissions: [signedIn],
      paging: { style: 'offset', unit: 'secrets' }
    })
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const client = await connect(t, { app, url: new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`) })
  const { tools } = await client.listTools()
  t.strictSame(tools.map((tool) => tool.name), ['listBroken'], 'not listed to a key the check refuses')
  const secrets = await client.callTool({ name: 'listSecrets', arguments: {} })
  t.strictSame(refusalOf(secrets), { content: [{ type: 'text', text: 'Forbidden (403): This key may not call this tool: the "nobody" check refuses it.' }], isError: true })
  const broken = await client.callTool({ name: 'listBroken', arguments: {} })
  t.strictSame(refusalOf(broken), { content: [{ type: 'text', text: 'Internal Server Error (500): The server could not complete the request.' }], isError: true }, 'nothing of the cause reaches the model')
  t.match(errors, [{ msg: 'tool call failed', tool: 'listBroken', err: { message: 'secret connection string postgres://u:p@db' } }], 'the cause is logged')
})

t.test('rate limits count MCP calls: past the budget a call is a tool result with isError and Retry-After', async (t) => {
  const running = await listening(t, { rateLimitMax: 6, rateLimitWindow: 600 })
  const client = await connect(t, running)
  const results: CallResult[] = []
  for (let call = 0; call < 8; call++) results.push(await client.callTool({ name: 'listLedgerEntries', arguments: { limit: 1 } }))
  const refusedAt = results.findIndex((result) => result.isError === true)
  t.ok(refusedAt > 0, 'served until the budget is spent')
  t.match(textOf(results[refusedAt]), /^Rate limited \(429\): Too many requests: this key may make 6 per 600 s\. Retry after \d+ s\.$/)
  t.ok(results.slice(refusedAt).every((result) => result.isError === true), 'and refused from then on')
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}` }
  const listing = await fetch(running.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
  t.equal(listing.status, 429, 'any other message is refused as HTTP refuses it')
  t.match(await listing.json(), { type: 'urn:audience-gateway:problem:rate-limited' })
  const notification = await fetch(running.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  t.equal(notification.status, 429, 'a notification too: it has no id to answer')
  await notification.text()
  const stream = await fetch(running.url, { headers: { authorization: `Bearer ${KEY}` } })
  t.equal(stream.status, 429, 'a GET too')
  await stream.text()
})

t.test('load shedding counts MCP calls: while shedding a call is a tool result with isError', async (t) => {
  let arm: () => void = () => {}
  const running = await listening(t, { loadShedding: { maxHeapUsedBytes: 1, sampleInterval: 10, retryAfter: 7, armAfter: (_ms, armNow) => { arm = armNow } } })
  const client = await connect(t, running)
  t.notOk((await client.callTool({ name: 'listLedgerEntries', arguments: { limit: 1 } })).isError, 'served before shedding begins')
  arm()
  const shed = await client.callTool({ name: 'listLedgerEntries', arguments: { limit: 1 } })
  t.strictSame(refusalOf(shed), { content: [{ type: 'text', text: 'Overloaded (503): The server is overloaded; retry after 7 s.' }], isError: true })
})
