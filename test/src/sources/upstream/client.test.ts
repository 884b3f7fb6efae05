// The upstream client against real HTTP servers on 127.0.0.1: what it sends, what it returns, and
// what each failure becomes, retried or not, counted against the circuit or not, told to the log.
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { problemOf, type ProblemResponse } from '../../../../src/core/problem.js'
import { upstreamClient, type UpstreamClient, type UpstreamOptions } from '../../../../src/sources/upstream/client.js'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

interface Upstream {
  readonly origin: string
  readonly server: Server
  /** The requests received so far. */
  readonly requests: IncomingMessage[]
}

/** An HTTP server on a free port of 127.0.0.1, closed (its connections dropped) when the test ends. */
async function upstream (t: Test, handler: Handler): Promise<Upstream> {
  const requests: IncomingMessage[] = []
  const server = createServer((request, response) => {
    requests.push(request)
    handler(request, response)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  })
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests }
}

/** A JSON answer. */
function json (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}

interface Logged {
  readonly details: Record<string, unknown>
  readonly message: string
}

/** A client whose log is kept, closed when the test ends; quick retries unless told otherwise. */
function client (t: Test, options: UpstreamOptions): { api: UpstreamClient, logged: Logged[] } {
  const logged: Logged[] = []
  const api = upstreamClient({
    retries: { baseMs: 1, maxMs: 2 },
    log: { warn: (details, message) => { logged.push({ details: details as Record<string, unknown>, message }) } },
    ...options
  })
  t.teardown(() => api.close())
  return { api, logged }
}

/** What the gateway's client would see for the error `promise` rejects with. */
async function answered (promise: Promise<unknown>): Promise<ProblemResponse> {
  return problemOf(await rejection(promise))
}

/** What `promise` rejects with; a test fails if it fulfils. */
async function rejection (promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

/** A port nothing listens on: one the system just gave out and took back. */
async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, 'close')
  return port
}

t.test('a path, resolved against the origin, answered with JSON', async (t) => {
  const server = await upstream(t, (request, response) => { json(response, 200, { url: request.url, items: [1, 2] }, { 'x-total': '2' }) })
  const { api, logged } = client(t, { origin: server.origin })
  t.equal(api.origin, server.origin)
  const answer = await api.get('/books?page=2')
  t.equal(answer?.status, 200)
  t.equal(answer?.url.href, `${server.origin}/books?page=2`)
  t.equal(answer?.headers['x-total'], '2')
  t.strictSame(answer?.body, { url: '/books?page=2', items: [1, 2] })
  t.equal(server.requests[0].headers.accept, 'application/json')
  t.equal(logged.length, 0)
})

t.test('an absolute URL on the origin, as a string or a URL', async (t) => {
  const server = await upstream(t, (request, response) => { json(response, 200, { url: request.url }) })
  const { api } = client(t, { origin: server.origin + '/' })
  t.equal(api.origin, server.origin, 'the origin as the URL standard writes it')
  t.strictSame((await api.get(`${server.origin}/next?cursor=abc`))?.body, { url: '/next?cursor=abc' })
  t.strictSame((await api.get(new URL('/other', server.origin)))?.body, { url: '/other' })
})

t.test('a URL off the origin, or no URL at all, is refused, logged, and never fetched', async (t) => {
  const server = await upstream(t, (request, response) => { json(response, 200, {}) })
  const { api, logged } = client(t, { origin: server.origin })
  const { port } = new URL(server.origin)
  for (const target of [`http://localhost:${port}/next`, '//elsewhere.example/steal?token=1', `https://127.0.0.1:${port}/next`, 'http://[']) {
    const { status, body } = await answered(api.get(target))
    t.equal(status, 502, target)
    t.equal(body.detail, 'The upstream linked off its origin, which the gateway does not follow.')
  }
  t.equal(server.requests.length, 0)
  t.strictSame(logged.map(({ message }) => message), Array(4).fill('upstream URL off its origin refused'))
  t.strictSame(logged[1].details, { origin: server.origin, refused: 'http://elsewhere.example/steal' }, 'the query is not logged')
  t.strictSame(logged[3].details, { origin: server.origin, refused: 'not a URL' })
})

t.test('a 404 is an absent record when asked, a failure otherwise; neither is retried', async (t) => {
  const server = await upstream(t, (request, response) => { json(response, 404, { error: 'no such book' }) })
  const { api, logged } = client(t, { origin: server.origin })
  t.equal(await api.get('/books/9', { notFound: 'absent' }), undefined)
  t.equal(logged.length, 0, 'an absent record is nothing to tell')
  const { status, body } = await answered(api.get('/books'))
  t.equal(status, 502)
  t.equal(body.detail, 'The upstream has nothing where the gateway expected a resource (HTTP 404).')
  t.equal(server.requests.length, 2)
  t.strictSame(logged, [{ details: { origin: server.origin, path: '/books', attempt: 1, status: 404, body: '{"error":"no such book"}' }, message: 'upstream call failed' }])
})

t.test('a refused connection is unreachable, after its retries', async (t) => {
  const origin = `http://127.0.0.1:${await freePort()}`
  const { api, logged } = client(t, { origin, retries: { attempts: 1, baseMs: 1, maxMs: 1 } })
  const { status, body } = await answered(api.get('/books'))
  t.equal(status, 502)
  t.equal(body.type, 'urn:audience-gateway:problem:upstream-unreachable')
  t.equal(body.detail, 'The upstream could not be reached.')
  t.strictSame(logged.map(({ details }) => [details.attempt, details.code]), [[1, 'ECONNREFUSED'], [2, 'ECONNREFUSED']])
})

t.test('a connection reset is unreachable, after its retries', async (t) => {
  const server = await upstream(t, (request) => { request.socket.destroy() })
  const { api, logged } = client(t, { origin: server.origin })
  const { status, body } = await answered(api.get('/books'))
  t.equal(status, 502)
  t.equal(body.type, 'urn:audience-gateway:problem:upstream-unreachable')
  t.equal(server.requests.length, 3, 'the first attempt and two retries')
  t.strictSame(logged.map(({ details }) => details.code), ['UND_ERR_SOCKET', 'UND_ERR_SOCKET', 'UND_ERR_SOCKET'])
})

t.test('no headers within headersMs: a timeout', async (t) => {
  const server = await upstream(t, () => {})
  const { api, logged } = client(t, { origin: server.origin, timeouts: { headersMs: 50 }, retries: { attempts: 0 } })
  const { status, body } = await answered(api.get('/slow'))
  t.equal(status, 504)
  t.equal(body.detail, 'The upstream did not answer in time.')
  t.strictSame(logged.map(({ details }) => details.code), ['UND_ERR_HEADERS_TIMEOUT'])
})

t.test('a body that stalls for bodyMs: a timeout', async (t) => {
  const server = await upstream(t, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.write('[1, 2')
  })
  const { api, logged } = client(t, { origin: server.origin, timeouts: { bodyMs: 50 }, retries: { attempts: 0 } })
  const { status } = await answered(api.get('/stalls'))
  t.equal(status, 504)
  t.strictSame(logged.map(({ details }) => details.code), ['UND_ERR_BODY_TIMEOUT'])
})

t.test('a call outlasting its deadline is a timeout, and the upstream request is dropped', async (t) => {
  const server = await upstream(t, () => {})
  const { api, logged } = client(t, { origin: server.origin, deadlineMs: 50 })
  const arrived = once(server.server, 'request') as Promise<[IncomingMessage]>
  const call = answered(api.get('/slow'))
  const [request] = await arrived
  const dropped = once(request.socket, 'close')
  const { status, body } = await call
  t.equal(status, 504)
  t.equal(body.detail, 'The upstream did not answer in time.')
  t.strictSame(logged, [{ details: { origin: server.origin, path: '/slow', deadlineMs: 50 }, message: 'upstream call outlasted its deadline' }])
  await dropped
  t.equal(server.requests.length, 1)
})

t.test('a 5xx is retried, and the call succeeds when a retry does', async (t) => {
  const server = await upstream(t, (request, response) => {
    if (server.requests.length === 1) json(response, 503, { error: 'warming up' })
    else json(response, 200, { ok: true })
  })
  const { api, logged } = client(t, { origin: server.origin })
  t.strictSame((await api.get('/books'))?.body, { ok: true })
  t.equal(server.requests.length, 2)
  t.strictSame(logged.map(({ details }) => details), [{ origin: server.origin, path: '/books', attempt: 1, status: 503, body: '{"error":"warming up"}' }])
})

t.test('a 5xx on every attempt fails the call; the upstream\'s body goes to the log only, cut short', async (t) => {
  const said = 'Internal stack trace: ' + 'x'.repeat(1000)
  const server = await upstream(t, (request, response) => { response.writeHead(500, { 'content-type': 'text/plain' }).end(said) })
  const { api, logged } = client(t, { origin: server.origin })
  const { status, body, headers } = await answered(api.get('/books'))
  t.strictSame({ status, headers }, { status: 502, headers: {} })
  t.equal(body.detail, 'The upstream answered with an error (HTTP 500).')
  t.equal(server.requests.length, 3)
  t.strictSame(logged.map(({ details }) => details.attempt), [1, 2, 3])
  for (const { details } of logged) t.equal(details.body, said.slice(0, 512))
})

t.test('a Retry-After on a 5xx is waited for when it fits in the deadline, else the call fails at once', async (t) => {
  const server = await upstream(t, (request, response) => {
    const wait = request.url === '/later' ? '120' : '0'
    if (server.requests.filter(({ url }) => url === request.url).length === 1) json(response, 503, {}, { 'retry-after': wait })
    else json(response, 200, { ok: true })
  })
  const { api } = client(t, { origin: server.origin })
  t.strictSame((await api.get('/now'))?.body, { ok: true })
  const { status } = await answered(api.get('/later'))
  t.equal(status, 502)
  t.strictSame(server.requests.map(({ url }) => url), ['/now', '/now', '/later'])
})

t.test('a 429 is retried when its Retry-After fits in the deadline, in seconds or as an HTTP-date', async (t) => {
  const waits: Record<string, string> = { '/seconds': '0', '/date': new Date(Date.now() - 5000).toUTCString() }
  const server = await upstream(t, (request, response) => {
    if (server.requests.filter(({ url }) => url === request.url).length === 1) json(response, 429, {}, { 'retry-after': waits[request.url as string] })
    else json(response, 200, { url: request.url })
  })
  const { api } = client(t, { origin: server.origin })
  t.strictSame((await api.get('/seconds'))?.body, { url: '/seconds' })
  t.strictSame((await api.get('/date'))?.body, { url: '/date' })
  t.equal(server.requests.length, 4)
})

t.test('a 429 whose Retry-After does not fit is a 503 carrying it, and does not count against the circuit', async (t) => {
  const later = new Date(Date.now() + 60_000)
  const waits: Record<string, string> = { '/seconds': '120', '/date': later.toUTCString() }
  const server = await upstream(t, (request, response) => { json(response, 429, {}, { 'retry-after': waits[request.url as string] }) })
  const { api } = client(t, { origin: server.origin, breaker: { failures: 1 } })
  const seconds = await answered(api.get('/seconds'))
  t.equal(seconds.status, 503)
  t.strictSame(seconds.headers, { 'Retry-After': '120' })
  t.equal(seconds.body.detail, 'The upstream asks the gateway to slow down. Retry after 120 s.')
  const date = await answered(api.get('/date'))
  t.equal(date.status, 503)
  const asked = Number(date.headers['Retry-After'])
  t.ok(asked >= 58 && asked <= 60, `Retry-After ${asked}: the seconds to the date`)
  t.equal(server.requests.length, 2, 'neither retried, and the circuit is still closed')
})

t.test('a 429 that still says slow down after its retries is a 503', async (t) => {
  const server = await upstream(t, (request, response) => { json(response, 429, {}, { 'retry-after': '0' }) })
  const { api } = client(t, { origin: server.origin })
  const { status, headers } = await answered(api.get('/books'))
  t.strictSame({ status, headers }, { status: 503, headers: { 'Retry-After': '1' } })
  t.equal(server.requests.length, 3)
})

t.test('a body that is not JSON fails the call, and is not retried', async (t) => {
  const server = await upstream(t, (request, response) => { response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>') })
  const { api, logged } = client(t, { origin: server.origin })
  const { status, body } = await answered(api.get('/books'))
  t.equal(status, 502)
  t.equal(body.detail, 'The upstream answered something that is not JSON.')
  t.equal(server.requests.length, 1)
  t.strictSame(logged.map(({ details }) => details), [{ origin: server.origin, path: '/books', attempt: 1, status: 200, body: '<html>maintenance</html>' }])
})

t.test('a body over maxBytes fails the call, announced or streamed, and is not retried', async (t) => {
  const big = JSON.stringify({ padding: 'x'.repeat(100) })
  const server = await upstream(t, (request, response) => {
    if (request.url === '/announced') {
      json(response, 200, JSON.parse(big))
      return
    }
    response.writeHead(200, { 'content-type': 'application/json' })
    response.write(big.slice(0, 50))
    response.end(big.slice(50))
  })
  const { api, logged } = client(t, { origin: server.origin, maxBytes: 64 })
  for (const path of ['/announced', '/streamed']) {
    const { status, body } = await answered(api.get(path))
    t.equal(status, 502, path)
    t.equal(body.detail, 'The upstream answered a body larger than the gateway reads.')
  }
  t.equal(server.requests.length, 2)
  t.strictSame(logged.map(({ details }) => details.code), ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'UND_ERR_RES_EXCEEDED_MAX_SIZE'])
})

t.test('a 401 or 403 refusing the gateway\'s credentials fails the call, and is not retried', async (t) => {
  const server = await upstream(t, (request, response) => { json(response, request.url === '/401' ? 401 : 403, { error: 'bad key' }) })
  const { api } = client(t, { origin: server.origin })
  for (const path of ['/401', '/403']) {
    const { status, body } = await answered(api.get(path))
    t.equal(status, 502)
    t.equal(body.detail, `The upstream refused the gateway's credentials (HTTP ${path.slice(1)}).`)
  }
  t.equal(server.requests.length, 2)
})

t.test('the circuit opens after consecutive failures, refuses at once, half-opens, and closes on success', async (t) => {
  const realNow = Date.now.bind(Date)
  let ahead = 0
  t.capture(Date, 'now', () => realNow() + ahead)
  let failing = true
  const server = await upstream(t, (request, response) => { json(response, failing ? 500 : 200, { failing }) })
  const { api, logged } = client(t, { origin: server.origin, retries: { attempts: 0 }, breaker: { failures: 2, halfOpenAfterMs: 60_000 } })
  for (let call = 1; call <= 2; call++) t.equal((await answered(api.get('/books'))).status, 502, `call ${call} fails`)
  t.strictSame(logged.at(-1), { details: { origin: server.origin, failures: 2, halfOpenAfterMs: 60_000 }, message: 'upstream circuit open' })
  const refused = await answered(api.get('/books'))
  t.strictSame({ status: refused.status, headers: refused.headers }, { status: 503, headers: { 'Retry-After': '60' } })
  t.equal(refused.body.detail, 'The upstream is failing; the gateway leaves it alone for a while. Retry after 60 s.')
  ahead = 45_000
  t.strictSame((await answered(api.get('/books'))).headers, { 'Retry-After': '15' }, 'the seconds left')
  t.equal(server.requests.length, 2, 'an open circuit does not call the upstream')
  ahead = 60_000
  failing = false
  t.strictSame((await api.get('/books'))?.body, { failing: false }, 'half-open: one call goes through')
  t.strictSame((await api.get('/books'))?.body, { failing: false }, 'closed again')
  t.equal(server.requests.length, 4)
})

t.test('every attempt counts against the circuit: a call\'s own retries can open it, and stop there', async (t) => {
  const server = await upstream(t, (request, response) => { json(response, 502, {}) })
  const { api } = client(t, { origin: server.origin, breaker: { failures: 2 } })
  const { status, headers } = await answered(api.get('/books'))
  t.strictSame({ status, headers }, { status: 503, headers: { 'Retry-After': '10' } })
  t.equal(server.requests.length, 2, 'the third attempt met the open circuit')
})

t.test('beyond the calls in flight and those waiting: a 503 at once; a caller gone drops its call', async (t) => {
  const server = await upstream(t, (request, response) => {
    if (request.url !== '/hang') json(response, 200, { ok: true })
  })
  const { api, logged } = client(t, { origin: server.origin, concurrency: { limit: 1, queue: 0 }, breaker: { failures: 1 } })
  const caller = new AbortController()
  const arrived = once(server.server, 'request') as Promise<[IncomingMessage]>
  const hanging = rejection(api.get('/hang', { signal: caller.signal }))
  const [request] = await arrived
  const full = await answered(api.get('/books'))
  t.strictSame({ status: full.status, headers: full.headers }, { status: 503, headers: { 'Retry-After': '1' } })
  t.equal(full.body.detail, 'The upstream: too many calls to it are waiting already. Retry after 1 s.')
  t.strictSame(logged, [{ details: { origin: server.origin, limit: 1, queue: 0 }, message: 'upstream calls refused: queue full' }])
  const dropped = once(request.socket, 'close')
  const gone = new Error('the caller went away')
  caller.abort(gone)
  t.equal(await hanging, gone, 'the caller\'s reason, as it is')
  await dropped
  t.strictSame((await api.get('/books'))?.body, { ok: true }, 'the slot is free, and the circuit (one failure opens it) closed')
  t.equal(server.requests.length, 2)
})

t.test('a call given a log of its own tells every line of its own there: its failures, the circuit it opens, its refusals, its deadline', async (t) => {
  const server = await upstream(t, (request, response) => {
    if (request.url !== '/hang') json(response, 500, { down: true })
  })
  const own = (): { log: UpstreamOptions['log'], told: Logged[] } => {
    const told: Logged[] = []
    return { log: { warn: (details, message) => { told.push({ details: details as Record<string, unknown>, message }) } }, told }
  }
  const { api, logged } = client(t, { origin: server.origin, retries: { attempts: 1 }, breaker: { failures: 3 } })
  const first = own()
  await answered(api.get('/books', { log: first.log }))
  const second = own()
  await answered(api.get('/books', { log: second.log }))
  t.strictSame(first.told.map(({ message }) => message), ['upstream call failed', 'upstream call failed'])
  t.strictSame(second.told.map(({ message }) => message), ['upstream call failed', 'upstream circuit open'], 'the circuit, in the log of the call whose failure opened it')
  const offOrigin = own()
  await answered(api.get('http://elsewhere.example/', { log: offOrigin.log }))
  t.strictSame(offOrigin.told.map(({ message }) => message), ['upstream URL off its origin refused'])
  t.equal(logged.length, 0, 'the client\'s own log hears none of it')

  const capped = client(t, { origin: server.origin, concurrency: { limit: 1, queue: 0 } })
  const caller = new AbortController()
  const arrived = once(server.server, 'request')
  const holding = rejection(capped.api.get('/hang', { signal: caller.signal }))
  await arrived
  const refused = own()
  t.equal((await answered(capped.api.get('/books', { log: refused.log }))).status, 503)
  t.strictSame(refused.told.map(({ message }) => message), ['upstream calls refused: queue full'])
  caller.abort()
  await holding

  const slow = client(t, { origin: server.origin, deadlineMs: 50 })
  const late = own()
  t.equal((await answered(slow.api.get('/hang', { log: late.log }))).status, 504)
  t.strictSame(late.told.map(({ message }) => message), ['upstream call outlasted its deadline'])
  t.equal(capped.logged.length + slow.logged.length, 0)
})

t.test('a caller gone while its call waits for a slot: rejected at once, and never sent', async (t) => {
  const server = await upstream(t, () => {})
  const { api } = client(t, { origin: server.origin, concurrency: { limit: 1, queue: 1 } })
  const first = new AbortController()
  const arrived = once(server.server, 'request')
  const hanging = rejection(api.get('/hang', { signal: first.signal }))
  await arrived
  const second = new AbortController()
  const waiting = rejection(api.get('/queued', { signal: second.signal }))
  second.abort()
  t.equal(await waiting, second.signal.reason)
  first.abort()
  t.equal(await hanging, first.signal.reason)
  t.strictSame(server.requests.map(({ url }) => url), ['/hang'])
})

t.test('a caller gone before the call: nothing is sent', async (t) => {
  const server = await upstream(t, () => {})
  const { api } = client(t, { origin: server.origin })
  const reason = new Error('gone already')
  t.equal(await rejection(api.get('/books', { signal: AbortSignal.abort(reason) })), reason)
  t.equal(server.requests.length, 0)
})

t.test('the configured headers are sent, nothing else, and never logged', async (t) => {
  const secret = 'top-secret-credential'
  const server = await upstream(t, (request, response) => {
    if (request.url === '/ok') json(response, 200, { ok: true })
    else if (request.url === '/not-json') response.end('not json')
    else if (request.url !== '/slow') json(response, 500, { error: 'down' })
  })
  const { api, logged } = client(t, {
    origin: server.origin,
    headers: { Authorization: `Bearer ${secret}`, 'X-Api-Key': secret, Accept: 'application/vnd.api+json' },
    timeouts: { headersMs: 50 },
    breaker: { failures: 4 }
  })
  await api.get('/ok')
  const { host, connection, ...sent } = server.requests[0].headers
  t.ok(host !== undefined && connection !== undefined)
  t.strictSame(sent, { authorization: `Bearer ${secret}`, 'x-api-key': secret, accept: 'application/vnd.api+json' })
  for (const path of ['/not-json', '/boom', '/slow', 'https://elsewhere.example/', '/refused-by-the-open-circuit']) await rejection(api.get(path))
  t.strictSame(logged.map(({ message }) => message), [
    ...Array(5).fill('upstream call failed'), 'upstream circuit open', 'upstream URL off its origin refused'
  ], 'every failure told: not JSON, three 500s, a timeout that opens the circuit, a link elsewhere')
  t.notMatch(JSON.stringify(logged), secret)
})

t.test('a defect (undici refusing a header) is thrown as it is, not made an upstream problem', async (t) => {
  const server = await upstream(t, () => {})
  const { api, logged } = client(t, { origin: server.origin, headers: { 'x-broken': 'a\r\nb' } })
  const error = await rejection(api.get('/books')) as { code?: string }
  t.equal(error.code, 'UND_ERR_INVALID_ARG')
  t.equal(problemOf(error).status, 500)
  t.equal(server.requests.length, 0)
  t.equal(logged.length, 0)
})

t.test('every option set, and none: defaults that work, without a log', async (t) => {
  const server = await upstream(t, (request, response) => { json(response, 200, { url: request.url }) })
  const { api } = client(t, {
    origin: server.origin,
    headers: {},
    timeouts: { connectMs: 1000, headersMs: 1000, bodyMs: 1000 },
    deadlineMs: 5000,
    retries: { attempts: 1, baseMs: 10, maxMs: 20 },
    breaker: { failures: 3, halfOpenAfterMs: 1000 },
    concurrency: { limit: 2, queue: 2 },
    maxBytes: 1000
  })
  t.strictSame((await api.get('/set'))?.body, { url: '/set' })
  const bare = upstreamClient({ origin: server.origin })
  t.teardown(() => bare.close())
  t.strictSame((await bare.get('/bare'))?.body, { url: '/bare' })
  t.equal((await answered(bare.get('https://elsewhere.example/'))).status, 502, 'a failure told to no log')
})

t.test('options it cannot use are refused at construction, saying why', async (t) => {
  const origin = 'https://api.example.com'
  const refusals: Array<[UpstreamOptions, RegExp]> = [
    [{ origin: 'not a url' }, /origin must be an http: or https: URL/],
    [{ origin: 'ftp://files.example.com' }, /origin must be an http: or https: URL/],
    [{ origin: 'https://user:pass@api.example.com' }, /must not carry credentials/],
    [{ origin: 'https://api.example.com/v1' }, /origin only \(https:\/\/api\.example\.com\), without a path/],
    [{ origin: 'https://api.example.com/?key=1' }, /without a path, query or fragment/],
    [{ origin: 'https://api.example.com/#top' }, /without a path, query or fragment/],
    [{ origin, timeouts: { connectMs: 0 } }, /timeouts\.connectMs must be a positive integer; got 0/],
    [{ origin, timeouts: { headersMs: 1.5 } }, /timeouts\.headersMs must be a positive integer; got 1\.5/],
    [{ origin, timeouts: { bodyMs: Number.NaN } }, /timeouts\.bodyMs/],
    [{ origin, deadlineMs: -1 }, /deadlineMs/],
    [{ origin, retries: { attempts: -1 } }, /retries\.attempts must be a non-negative integer; got -1/],
    [{ origin, retries: { baseMs: 500, maxMs: 100 } }, /retries\.maxMs \(100\) is below retries\.baseMs \(500\)/],
    [{ origin, breaker: { failures: 0 } }, /breaker\.failures/],
    [{ origin, breaker: { halfOpenAfterMs: Infinity } }, /breaker\.halfOpenAfterMs/],
    [{ origin, concurrency: { limit: 0 } }, /concurrency\.limit/],
    [{ origin, concurrency: { queue: -1 } }, /concurrency\.queue must be a non-negative integer/],
    [{ origin, maxBytes: 0 }, /maxBytes/]
  ]
  for (const [options, message] of refusals) t.throws(() => upstreamClient(options), { name: 'RangeError', message }, JSON.stringify(options))
  const none = upstreamClient({ origin, retries: { attempts: 0 }, concurrency: { queue: 0 } })
  t.equal(none.origin, origin, 'no retries and no queue are fine')
  await none.close()
})
