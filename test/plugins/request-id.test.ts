// Request ids round-trip: a safe X-Request-Id is kept, anything else replaced by a new one; the id is
// echoed on the answer, in a problem's body, in an MCP refusal, sent to the upstream, and carried by
// every log line of the request.
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import t from 'tap'
import app from '../../demo/app.js'
import { startDemoUpstream } from '../../demo/upstream.js'
import { REQUEST_ID_PATTERN } from '../../src/http/request-id.js'
import { REQUEST_ID_META, refusal } from '../../src/mcp/tools.js'
import { serverOptions } from '../../src/server.js'
import { AUTH, buildApp, KEY } from '../helpers/app.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('a safe id is kept and echoed; anything else is replaced by a new one', async (t) => {
  const { app } = await buildApp(t)
  const kept = await app.inject({ url: '/books/1', headers: { ...AUTH, 'x-request-id': 'client-42:a/b.c_d' } })
  t.equal(kept.headers['x-request-id'], 'client-42:a/b.c_d')
  const missing = await app.inject({ url: '/books/99', headers: { ...AUTH, 'x-request-id': 'req-404' } })
  t.equal(missing.json().request_id, 'req-404', 'in the problem body')
  for (const unsafe of ['a'.repeat(129), 'two words', 'quote"d', '']) {
    const res = await app.inject({ url: '/books/1', headers: { ...AUTH, 'x-request-id': unsafe } })
    t.match(res.headers['x-request-id'], UUID, `${JSON.stringify(unsafe.slice(0, 12))}: replaced`)
  }
  const none = await app.inject({ url: '/nowhere' })
  t.match(none.headers['x-request-id'], UUID, 'none sent: one made')
  t.equal(none.json().request_id, none.headers['x-request-id'], 'the same in the body')
  t.match('a'.repeat(128), REQUEST_ID_PATTERN, '128 characters are kept')
  t.notOk('_meta' in refusal({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'Gone.' }), 'a refusal with no request names none')
})

t.test('an MCP refusal carries the id, and the upstream is sent it', async (t) => {
  const upstream = await startDemoUpstream({ port: 0 })
  t.teardown(upstream.close)
  const { app } = await buildApp(t, { upstreamUrl: upstream.url })
  const refused = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...AUTH, 'x-request-id': 'mcp-7', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getBook', arguments: { id: 99 } } })
  })
  t.equal(refused.headers['x-request-id'], 'mcp-7')
  t.equal(refused.json().result._meta[REQUEST_ID_META], 'mcp-7')
  t.equal(refused.json().result.isError, true)

  upstream.requests.clear()
  const record = await app.inject({ url: '/products/SKU-00001', headers: { 'x-request-id': 'up-1' } })
  t.equal(record.statusCode, 200)
  const plain = await app.inject({ url: '/products', headers: { 'x-request-id': 'up-2' } })
  t.equal(plain.statusCode, 200)
  const tool = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'x-request-id': 'up-3', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'listProducts', arguments: { limit: 1 } } })
  })
  t.equal(tool.statusCode, 200)
  const sent = upstream.requests.recent.map((request) => request.headers['x-request-id'])
  t.ok(sent.includes('up-1'), 'a record\'s call')
  t.ok(sent.includes('up-2'), 'a plain list\'s walk')
  t.ok(sent.includes('up-3'), 'a tool call\'s window')
  t.equal(sent.filter((id) => id === undefined).length, 0, 'every call sends one')
})

t.test('every log line of a request carries its id', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({ write (chunk: Buffer, _encoding, done) { lines.push(JSON.parse(chunk.toString())); done() } })
  const server = Fastify({ ...serverOptions('info'), logger: { level: 'info', stream } })
  t.teardown(async () => { await server.close() })
  await server.register(fp(app), { timeZone: 'UTC', apiKeys: [KEY], databaseUrl: ':memory:', loadShedding: { maxEventLoopDelay: 0 } })
  await server.ready()
  lines.length = 0
  await server.inject({ url: '/books/99', headers: { ...AUTH, 'x-request-id': 'find-me' } })
  const mine = lines.filter((line) => line.reqId === 'find-me')
  t.ok(mine.length >= 3, `${mine.length} lines: in, refused, out`)
  t.equal(mine.length, lines.length, 'no line of the request without its id')
  t.ok(mine.some((line) => line.msg === 'request rejected'))
})
