import t from 'tap'
import { AUTH, buildApp } from '../helpers/app.js'

const ORIGIN = 'https://app.example.com'
const { app } = await buildApp(t, { corsOrigins: [ORIGIN, 'http://localhost:5173'] })

t.test('an allowed origin is echoed, and Vary names Origin beside Accept and X-Audience', async (t) => {
  const res = await app.inject({ url: '/books/1', headers: { ...AUTH, origin: ORIGIN } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['access-control-allow-origin'], ORIGIN)
  t.equal(res.headers.vary, 'Origin, Accept, X-Audience')
  t.equal(res.headers['access-control-allow-credentials'], undefined, 'keys travel in a header, not in cookies')
})

t.test('a browser script may read the validator, the retry delay and the challenge', async (t) => {
  const res = await app.inject({ url: '/books/1', headers: { ...AUTH, origin: ORIGIN } })
  const exposed = String(res.headers['access-control-expose-headers']).split(', ')
  for (const header of ['ETag', 'Retry-After', 'WWW-Authenticate', 'X-RateLimit-Remaining']) t.ok(exposed.includes(header), header)
})

t.test('an origin not configured gets no CORS headers, and the answer still varies on Origin', async (t) => {
  const res = await app.inject({ url: '/books/1', headers: { ...AUTH, origin: 'https://evil.example' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['access-control-allow-origin'], undefined)
  t.equal(res.headers.vary, 'Origin, Accept, X-Audience')
})

t.test('a preflight allows GET with the Authorization, X-Audience and If-None-Match headers', async (t) => {
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/books',
    headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, x-audience, if-none-match' }
  })
  t.equal(res.statusCode, 204)
  t.equal(res.headers['access-control-allow-origin'], ORIGIN)
  t.equal(res.headers['access-control-allow-methods'], 'GET, HEAD')
  t.same(String(res.headers['access-control-allow-headers']).toLowerCase().split(', ').sort(), ['authorization', 'if-none-match', 'x-audience'])
  t.equal(res.headers['access-control-max-age'], '600')
})

t.test('a refused request carries the CORS headers too, so the page can read the problem', async (t) => {
  const res = await app.inject({ url: '/books', headers: { origin: ORIGIN } })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['access-control-allow-origin'], ORIGIN)
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
  t.equal(res.headers.vary, 'Origin, Accept, X-Audience')
})

t.test('without CORS_ORIGINS no origin is allowed and there is no preflight', async (t) => {
  const { app } = await buildApp(t)
  const res = await app.inject({ url: '/books/1', headers: { ...AUTH, origin: ORIGIN } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['access-control-allow-origin'], undefined)
  t.equal(res.headers.vary, 'Accept, X-Audience')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/books', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } })
  t.equal(preflight.statusCode, 204, 'an OPTIONS answer, with Allow, and nothing of CORS')
  t.equal(preflight.headers.allow, 'GET, HEAD, OPTIONS')
  t.notOk(Object.keys(preflight.headers).some((name) => name.startsWith('access-control-')))
})

t.test('an origin not configured gets no CORS header at all, on a request and on a preflight', async (t) => {
  const evil = 'https://evil.example'
  const res = await app.inject({ url: '/books/1', headers: { ...AUTH, origin: evil } })
  t.notOk(Object.keys(res.headers).some((name) => name.startsWith('access-control-')), 'not even the exposed headers')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/books', headers: { origin: evil, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } })
  t.notOk(Object.keys(preflight.headers).some((name) => name.startsWith('access-control-')), 'no preflight')
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers.allow, 'GET, HEAD, OPTIONS')
  const unknown = await app.inject({ method: 'OPTIONS', url: '/nowhere', headers: { origin: evil, 'access-control-request-method': 'GET' } })
  t.equal(unknown.statusCode, 404)
  t.notOk(Object.keys(unknown.headers).some((name) => name.startsWith('access-control-')))
})

/** Every header a browser MCP client sends, of either revision: the 2025 ones and the newer ones. */
const MCP_REQUEST_HEADERS = ['accept', 'authorization', 'content-type', 'last-event-id', 'mcp-method', 'mcp-name', 'mcp-protocol-version', 'mcp-session-id']

t.test('a preflight for /mcp allows what a browser MCP client sends: its methods and its headers', async (t) => {
  for (const url of ['/mcp', '/mcp?from=browser']) {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': MCP_REQUEST_HEADERS.join(', ') }
      })
      t.equal(res.statusCode, 204, `${method} ${url}`)
      t.equal(res.headers['access-control-allow-origin'], ORIGIN)
      t.ok(String(res.headers['access-control-allow-methods']).split(', ').includes(method), `${method} ${url}: allowed`)
      t.strictSame(String(res.headers['access-control-allow-headers']).toLowerCase().split(', ').sort(), MCP_REQUEST_HEADERS, `${method} ${url}: every header allowed`)
      t.equal(res.headers['access-control-max-age'], '600')
    }
  }
})

t.test('an answer of /mcp lets a browser script read the session id beside the other headers; other paths do not expose it', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...AUTH, origin: ORIGIN, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' }
  })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['access-control-allow-origin'], ORIGIN)
  const exposed = String(res.headers['access-control-expose-headers']).split(', ')
  for (const header of ['Mcp-Session-Id', 'WWW-Authenticate', 'Retry-After', 'X-RateLimit-Remaining']) t.ok(exposed.includes(header), header)
  const books = await app.inject({ url: '/books/1', headers: { ...AUTH, origin: ORIGIN } })
  t.notOk(String(books.headers['access-control-expose-headers']).includes('Mcp-Session-Id'))
})

t.test('other paths keep a read-only allowance: no POST, no MCP header', async (t) => {
  const res = await app.inject({ method: 'OPTIONS', url: '/books?page=2', headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-session-id' } })
  t.equal(res.headers['access-control-allow-methods'], 'GET, HEAD')
  t.same(String(res.headers['access-control-allow-headers']).toLowerCase().split(', ').sort(), ['authorization', 'if-none-match', 'x-audience'])
})

t.test('an OAuth client in a browser reads the answer of a registration and of a metadata probe, not a CORS failure', async (t) => {
  const registration = await app.inject({ method: 'OPTIONS', url: '/register', headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } })
  t.equal(registration.headers['access-control-allow-methods'], 'GET, HEAD, POST')
  t.match(String(registration.headers['access-control-allow-headers']), /Content-Type/)
  const metadata = await app.inject({ method: 'OPTIONS', url: '/.well-known/oauth-protected-resource', headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' } })
  t.equal(metadata.headers['access-control-allow-methods'], 'GET, HEAD')
  t.match(String(metadata.headers['access-control-allow-headers']), /Mcp-Protocol-Version/)
})

t.test('an origin not configured gets no preflight for /mcp either', async (t) => {
  const res = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } })
  t.notOk(Object.keys(res.headers).some((name) => name.startsWith('access-control-')))
})
