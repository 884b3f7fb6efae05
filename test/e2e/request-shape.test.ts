// Requests that are malformed, ambiguous or outsized at their edges, sent on raw sockets as an attacker
// would: each gets one problem with the security headers, never two answers, never a wait for a body
// no route reads, and what it echoes back is bounded.
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import t, { type Test } from 'tap'
import app from '../../demo/app.js'
import { MAX_ECHOED_CHARACTERS, MAX_ECHOED_NAMES } from '../../src/core/echo.js'
import { serverOptions } from '../../src/server.js'
import { AUTH, buildApp, KEY } from '../helpers/app.js'
import { expectProblem } from '../helpers/problem.js'

const server = Fastify(serverOptions('silent'))
await server.register(fp(app), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY] })
await server.listen({ port: 0, host: '127.0.0.1' })
t.teardown(() => server.close())
const port = (server.server.address() as AddressInfo).port

/** Writes `request` on a raw socket and reads everything until the server closes it. */
async function exchange (request: string): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.write(request)
  await once(socket, 'close')
  return Buffer.concat(chunks).toString()
}

/** The answers in what a socket received: their status lines. */
function statusLines (received: string): string[] {
  return received.match(/HTTP\/1\.1 \d{3}/g) ?? []
}

/** The one problem in `received`, whose status line must be `status`. */
function onlyProblem (t: Test, received: string, status: number): { type: string, detail: string } {
  t.strictSame(statusLines(received), [`HTTP/1.1 ${status}`], 'one answer, then the connection closed')
  t.match(received, /\r\nx-content-type-options: nosniff\r\n/i, 'with the security headers')
  t.match(received, /\r\ncontent-type: application\/problem\+json/i)
  return JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))
}

t.test('a transfer coding that does not end with chunked: one 400, then the connection closed (RFC 9112 section 6.3)', async (t) => {
  for (const method of ['GET', 'POST']) {
    for (const codings of ['xchunked', 'gzip', 'chunked, gzip', 'identity', 'chunked;x=1, br']) {
      const received = await exchange(`${method} /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${codings}\r\n\r\n5\r\nhello\r\n0\r\n\r\n`)
      const body = onlyProblem(t, received, 400)
      t.equal(body.type, 'urn:audience-gateway:problem:malformed-request', `${method} ${codings}`)
      // Node's parser refuses some codings before any request exists; the gateway, those it lets through.
      t.match(body.detail, /Transfer-Encoding must end with chunked|not well-formed HTTP\/1\.1/)
    }
  }
})

t.test('a GET announcing a chunked body is still the one 413 it was', async (t) => {
  const received = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhel')
  t.equal(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)).status, 413)
  t.equal(statusLines(received).length, 1)
})

t.test('a method a path is not served with is answered before the body it announces, and the connection closed', async (t) => {
  // The body never comes: the answer cannot be waiting for it.
  for (const [method, path] of [['POST', '/ledger'], ['PUT', '/books/1'], ['DELETE', '/books'], ['POST', '/nowhere']]) {
    const received = await exchange(`${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a`)
    const status = path === '/nowhere' ? 404 : 405
    t.equal(onlyProblem(t, received, status).type, `urn:audience-gateway:problem:${status === 404 ? 'not-found' : 'method-not-allowed'}`, `${method} ${path}`)
    t.match(received, /\r\nconnection: close\r\n/i)
  }
})

t.test('a Host or an Authorization sent twice, or a Host that is not a host and port, is a 400', async (t) => {
  const cases = [
    'Host: x\r\nHost: y',
    'Host: x\r\nhost: x',
    'Host: 127.0.0.1:80/evil',
    'Host: x y',
    'Host: a@b',
    `Host: x\r\nAuthorization: Bearer ${KEY}\r\nAuthorization: Bearer other`
  ]
  for (const headers of cases) {
    const received = await exchange(`GET /healthz HTTP/1.1\r\n${headers}\r\nConnection: close\r\n\r\n`)
    t.equal(onlyProblem(t, received, 400).type, 'urn:audience-gateway:problem:malformed-request', headers)
  }
  for (const host of ['example.com', 'example.com:8080', '127.0.0.1:3000', '[::1]:3000', 'xn--bcher-kva.example', '']) {
    const received = await exchange(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
    t.strictSame(statusLines(received), ['HTTP/1.1 200'], `Host: ${host}`)
  }
})

t.test('an expectation other than 100-continue is a 417 problem with the security headers', async (t) => {
  const received = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n')
  const body = onlyProblem(t, received, 417)
  t.equal(body.type, 'urn:audience-gateway:problem:expectation-failed')
  t.match(received, /\r\nconnection: close\r\n/i)
})

t.test('inside the app: a route that serves the method but finds nothing (a static file) is a 404, not a 405', async (t) => {
  const { app } = await buildApp(t)
  for (const method of ['GET', 'HEAD'] as const) {
    const res = await app.inject({ method, url: '/docs/static/no-such-file.js' })
    t.equal(res.statusCode, 404, method)
  }
  expectProblem(t, await app.inject({ url: '/docs/static/no-such-file.js' }), { status: 404, kind: 'not-found' })
  t.equal((await app.inject({ method: 'POST', url: '/docs/static/no-such-file.js' })).statusCode, 405, 'another method is still a 405')
})

t.test('an argument named like a prototype is one more unknown argument, over HTTP', async (t) => {
  const { app } = await buildApp(t)
  for (const name of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
    const res = await app.inject({ url: `/books?${name}=1`, headers: AUTH })
    const body = expectProblem(t, res, { status: 400, kind: 'invalid-arguments' })
    t.strictSame(Object.keys(body.errors ?? {}), [name], name)
    t.ok(Object.hasOwn(body.errors ?? {}, name))
  }
})

t.test('what a refusal echoes is bounded: a long argument name or audience, and many names', async (t) => {
  const { app } = await buildApp(t)
  const long = 'x'.repeat(5000)
  const one = await app.inject({ url: `/books?${long}=1`, headers: AUTH })
  const body = expectProblem(t, one, { status: 400, kind: 'invalid-arguments' })
  const [name] = Object.keys(body.errors ?? {})
  t.equal(name, `${'x'.repeat(MAX_ECHOED_CHARACTERS)}… (5000 characters)`)
  t.ok(one.body.length < 1000, `${one.body.length} bytes answered`)

  const many = Array.from({ length: 300 }, (_, i) => `unknown${i}=1`).join('&')
  const listed = expectProblem(t, await app.inject({ url: `/books?${many}`, headers: AUTH }), { status: 400, kind: 'invalid-arguments' })
  t.equal(Object.keys(listed.errors ?? {}).length, MAX_ECHOED_NAMES)
  t.match(listed.detail, new RegExp(`and ${300 - MAX_ECHOED_NAMES} more\\.`))

  const audience = await app.inject({ url: '/books', headers: { ...AUTH, 'x-audience': 'y'.repeat(3000) } })
  expectProblem(t, audience, { status: 400, kind: 'unknown-audience' })
  t.match(audience.json().detail, `"${'y'.repeat(MAX_ECHOED_CHARACTERS)}… (3000 characters)"`)
  t.ok(audience.body.length < 1000, `${audience.body.length} bytes answered`)
  const audiences = Array.from({ length: 200 }, (_, i) => `a${i}`).join(',')
  const several = await app.inject({ url: '/books', headers: { ...AUTH, 'x-audience': audiences } })
  t.match(several.json().detail, /and 180 more\)/)
})
