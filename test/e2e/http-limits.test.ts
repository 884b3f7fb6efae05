// The server's limits (src/server.ts serverOptions): what is too big, too slow or not HTTP is cut
// short, and answered as a problem+json like any other error.
import { once } from 'node:events'
import type { Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import Fastify, { type FastifyHttpOptions } from 'fastify'
import fp from 'fastify-plugin'
import t, { type Test } from 'tap'
import app from '../../demo/app.js'
import { DEADLINE_CHECK_MS, frameworkRefusal, requestDeadline, serverOptions } from '../../src/server.js'
import { AUTH, buildApp, KEY } from '../helpers/app.js'
import { PROBLEM_JSON } from '../helpers/problem.js'

/** The gateway on the served options (plus `extra`), listening on a free port. */
async function listening (t: Test, extra: FastifyHttpOptions<Server> = {}) {
  const server = Fastify({ ...serverOptions('silent'), ...extra })
  await server.register(fp(app), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY] })
  await server.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => server.close())
  return { server, port: (server.server.address() as AddressInfo).port }
}

/** Writes `request` on a raw socket and reads until the server closes it. */
async function exchange (port: number, request: string): Promise<{ head: string, body: string }> {
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.write(request)
  await once(socket, 'close')
  const [head, body = ''] = Buffer.concat(chunks).toString().split('\r\n\r\n')
  return { head, body }
}

t.test('a body over the limit is a 413 problem', async (t) => {
  const server = Fastify(serverOptions('silent'))
  await server.register(fp(app), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY] })
  // No route of the gateway takes a body; this one, for the test only, does.
  server.post('/echo', async (request) => request.body)
  t.teardown(() => server.close())
  const post = (size: number) => server.inject({ method: 'POST', url: '/echo', payload: { text: 'x'.repeat(size) } })
  t.equal((await post(100)).statusCode, 200, 'a small body is taken')
  const res = await post(2048)
  t.equal(res.statusCode, 413)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.match(res.json(), { type: 'about:blank', title: 'Payload Too Large', status: 413 })
})

t.test('a GET with a body is refused at once, unread, and its connection closed', async (t) => {
  const { port } = await listening(t)
  // 5 MB announced, a few bytes sent: the answer cannot wait for the rest.
  const { head, body } = await exchange(port, 'GET /books HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\nabc')
  t.match(head, /^HTTP\/1\.1 413 /)
  t.match(head, /\r\nconnection: close/i)
  t.match(head, /\r\nx-content-type-options: nosniff/i, 'with the security headers')
  t.match(JSON.parse(body), { type: 'urn:audience-gateway:problem:body-not-allowed', status: 413, detail: 'A GET request takes no body: send it without one.' })
  const chunked = await exchange(port, 'GET /ledger HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel')
  t.match(chunked.head, /^HTTP\/1\.1 413 /)
})

t.test('an HTTP/1.1 request without Host is a 400 problem with the security headers', async (t) => {
  const { port } = await listening(t)
  const { head, body } = await exchange(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n')
  t.match(head, /^HTTP\/1\.1 400 /)
  t.match(head, /\r\nx-content-type-options: nosniff/i)
  t.match(JSON.parse(body), { type: 'urn:audience-gateway:problem:malformed-request', detail: 'An HTTP/1.1 request must carry a Host header.' })
})

t.test('CONNECT is a 405 problem, answered before the connection closes', async (t) => {
  const { port } = await listening(t)
  const { head, body } = await exchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
  t.match(head, /^HTTP\/1\.1 405 Method Not Allowed\r\n/)
  t.match(head, /\r\nAllow: GET, HEAD, OPTIONS\r\n/)
  t.match(head, /\r\nx-content-type-options: nosniff\r\n/)
  t.match(JSON.parse(body), { type: 'urn:audience-gateway:problem:method-not-allowed', status: 405 })
})

t.test('a GET announcing an empty body is served', async (t) => {
  const { app } = await buildApp(t)
  const res = await app.inject({ url: '/ledger?limit=1', headers: { 'content-length': '0', 'x-audience': 'agent' } })
  t.equal(res.statusCode, 200)
})

t.test('an over-long path parameter is a 414 problem', async (t) => {
  const { app } = await buildApp(t)
  const res = await app.inject({ url: `/books/${'1'.repeat(101)}`, headers: AUTH })
  t.equal(res.statusCode, 414)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(res.json(), { type: 'urn:audience-gateway:problem:parameter-too-long', title: 'Parameter too long', status: 414, detail: 'A path parameter is longer than the server reads (100 characters).', request_id: res.headers['x-request-id'] })
  t.equal(res.headers['x-content-type-options'], 'nosniff', 'with the security headers, though no hook ran')
})

t.test('a URL with a broken escape is a 400 problem', async (t) => {
  const { app } = await buildApp(t)
  const res = await app.inject({ url: '/books/%E0%A4%A', headers: AUTH })
  t.equal(res.statusCode, 400)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(res.json(), { type: 'urn:audience-gateway:problem:malformed-request', title: 'Malformed request', status: 400, detail: 'The URL has a malformed percent-escape: encode it again.', request_id: res.headers['x-request-id'] })
  t.equal(res.headers['x-content-type-options'], 'nosniff', 'with the security headers, though no hook ran')
  t.equal((await app.inject({ url: '/books/%ZZ', headers: AUTH })).json().type, 'urn:audience-gateway:problem:malformed-request')
})

t.test('what is not HTTP is a 400 problem, and the connection is closed', async (t) => {
  const { port } = await listening(t)
  const { head, body } = await exchange(port, 'NOT HTTP AT ALL\r\n\r\n')
  t.match(head, /^HTTP\/1\.1 400 Bad Request\r\n/)
  t.match(head, /\r\nContent-Type: application\/problem\+json; charset=utf-8\r\n/)
  t.match(head, /\r\nx-content-type-options: nosniff\r\n/, 'with the security headers')
  t.match(head, /\r\nConnection: close/)
  t.strictSame(JSON.parse(body), { type: 'urn:audience-gateway:problem:malformed-request', title: 'Malformed request', status: 400, detail: 'The request is not well-formed HTTP/1.1.' })
})

t.test('headers over the size limit are a 431 problem', async (t) => {
  const { port } = await listening(t)
  const { head, body } = await exchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`)
  t.match(head, /^HTTP\/1\.1 431 /)
  t.strictSame(JSON.parse(body), { type: 'urn:audience-gateway:problem:headers-too-large', title: 'Headers too large', status: 431, detail: 'The request\'s headers are too large.' })
})

t.test('the served request deadline is checked every second, so it holds within about one', async (t) => {
  const { server } = await listening(t)
  // Node keeps the interval it was given on the server; the default would be 30 s.
  t.equal((server.server as unknown as { connectionsCheckingInterval?: number }).connectionsCheckingInterval, DEADLINE_CHECK_MS)
  t.equal(serverOptions('silent').http?.connectionsCheckingInterval, DEADLINE_CHECK_MS)
  t.ok(DEADLINE_CHECK_MS <= 1000)
})

t.test('a request that does not arrive in time is a 408 problem', async (t) => {
  // The served timeout is 10 s, checked every 30 s by Node; here both are shortened.
  const { port } = await listening(t, { requestTimeout: 200, http: { connectionsCheckingInterval: 50 } })
  const { head, body } = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n')
  t.match(head, /^HTTP\/1\.1 408 /)
  t.match(JSON.parse(body), { type: 'urn:audience-gateway:problem:request-timeout', status: 408, title: 'Request timeout' })
})

t.test('a body trickled in is cut at the request deadline, as the headers are, not at Node\'s 60 s', async (t) => {
  const { server } = await listening(t)
  t.equal(server.server.headersTimeout, server.server.requestTimeout, 'the served server: one deadline for headers and body')
  // The served deadline is 10 s; here 300 ms, checked every 50 ms. Before, the body had 60 s, past tap's timeout.
  const short = Fastify({ ...serverOptions('silent'), requestTimeout: 300, http: { connectionsCheckingInterval: 50, ...requestDeadline(300) } })
  await short.register(fp(app), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY] })
  // No route of the gateway takes a body; this one, for the test only, does.
  short.post('/echo', async (request) => request.body)
  await short.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => short.close())
  const { head, body } = await exchange((short.server.address() as AddressInfo).port, 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text": "')
  t.match(head, /^HTTP\/1\.1 408 /)
  t.match(JSON.parse(body), { type: 'urn:audience-gateway:problem:request-timeout', status: 408 })
})

t.test('a client that resets mid-request leaves the server serving', async (t) => {
  const { server, port } = await listening(t)
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n')
  socket.resetAndDestroy()
  await once(socket, 'close')
  const res = await fetch(`http://127.0.0.1:${port}/healthz`)
  t.equal(res.status, 200)
  t.ok(server.server.listening)
})

t.test('any other refusal of the framework says what is wrong without quoting the URL', async (t) => {
  t.match(frameworkRefusal({ code: 'FST_ERR_ASYNC_CONSTRAINT', statusCode: 500 }), { message: 'The request could not be routed.', statusCode: 500 })
  t.match(frameworkRefusal({ code: 'FST_ERR_BAD_URL', statusCode: 400 }), { code: 'AG_MALFORMED_REQUEST', statusCode: 400 })
})
