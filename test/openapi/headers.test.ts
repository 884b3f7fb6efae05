// The headers of real answers against the published document: every header an answer carries is
// declared for its path and status, and the rate limit's are declared on exactly the statuses whose
// answers carry them (a generated client reads them there; a contract tester checks them there).
import t, { type Test } from 'tap'
import { AGENT, AUTH, buildApp, KEY } from '../helpers/app.js'
import { documentedResponses, type OpenApiDocument } from '../helpers/openapi.js'

/**
 * Headers every answer of the server carries alike, whatever the route and status, which no
 * response declares: framing, the request id, the security headers (docs/security.md). Content-Type
 * is the media type the response's content already names (OpenAPI ignores it among headers).
 */
const EVERY_ANSWER = new Set([
  'content-type', 'content-length', 'transfer-encoding', 'date', 'connection', 'x-request-id',
  'content-security-policy', 'cross-origin-resource-policy', 'referrer-policy', 'strict-transport-security', 'x-content-type-options', 'x-frame-options'
])

const RATE_LIMIT = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']

/** A key that may read the ledger only: the invoices refuse it (403). */
const SCOPED_KEY = 'ledger-only-0123456789'
const SCOPED = { authorization: `Bearer ${SCOPED_KEY}` }

const { app } = await buildApp(t, { apiKeys: [KEY, { key: SCOPED_KEY, scopes: ['ledger:read'] }] })
const document = (await app.inject({ url: '/openapi.json' })).json() as OpenApiDocument
const documented = documentedResponses(document)

interface Answer { readonly statusCode: number, readonly headers: Record<string, unknown> }
type Get = (url: string, headers?: Record<string, string>, payload?: string) => Promise<Answer>

/** A GET to `app` (default: the main one), with a body when one is given (a 413). */
function getter (on = app): Get {
  return async (url, headers = {}, payload) => await on.inject({ method: 'GET', url, headers: payload === undefined ? headers : { ...headers, 'content-type': 'text/plain' }, payload })
}

/** Each documented response answered, by `path key`: whether any of its answers carried the rate limit's headers. */
const limited = new Map<string, boolean>()

/** Answers `url`'s request, expects `status`, and checks each header it carries is declared for it under `path`. */
async function check (t: Test, get: Get, path: string, status: number, url: string, headers?: Record<string, string>, payload?: string): Promise<Answer> {
  const res = await get(url, headers, payload)
  t.equal(res.statusCode, status, `${url}: status`)
  const key = documented.responseKey(path, 'get', status) ?? String(status)
  const declared = documented.headers(path, 'get', status) ?? {}
  for (const name of Object.keys(res.headers).filter((name) => !EVERY_ANSWER.has(name))) {
    t.ok(name in declared, `GET ${path} ${key} declares ${name}, which the answer to ${url} carries`, { declared: Object.keys(declared) })
  }
  const carried = RATE_LIMIT.filter((name) => name in res.headers)
  t.ok(carried.length === 0 || carried.length === RATE_LIMIT.length, `${url}: the rate limit's headers come together`)
  limited.set(`${path} ${key}`, (limited.get(`${path} ${key}`) ?? false) || carried.length > 0)
  return res
}

t.test('every header a real answer carries is declared for its path and status', async (t) => {
  const get = getter()
  // The mounted routes, every status they declare.
  const books = await check(t, get, '/books', 200, '/books', AUTH)
  await check(t, get, '/books', 200, '/books', AGENT)
  await check(t, get, '/books', 304, '/books', { ...AUTH, 'if-none-match': String(books.headers.etag) })
  await check(t, get, '/books', 400, '/books?colour=red', AGENT)
  await check(t, get, '/books', 400, '/books', { ...AUTH, 'x-audience': 'robot' })
  await check(t, get, '/books', 401, '/books')
  await check(t, get, '/books', 401, '/books', { authorization: 'Bearer not-a-key-0123456789' })
  await check(t, get, '/books', 406, '/books', { ...AUTH, accept: 'text/csv' })
  await check(t, get, '/books', 412, '/books', { ...AUTH, 'if-match': '"other"' })
  await check(t, get, '/books', 413, '/books', AUTH, 'a body')
  await check(t, get, '/invoices', 200, '/invoices', AGENT)
  await check(t, get, '/invoices', 403, '/invoices', SCOPED)
  await check(t, get, '/books/with-authors', 200, '/books/with-authors', AUTH)
  const book = await check(t, get, '/books/{id}', 200, '/books/1', AGENT)
  await check(t, get, '/books/{id}', 304, '/books/1', { ...AGENT, 'if-none-match': String(book.headers.etag) })
  await check(t, get, '/books/{id}', 404, '/books/99', AGENT)
  await check(t, get, '/books/{id}', 414, `/books/${'9'.repeat(101)}`, AUTH)
  await check(t, get, '/books/{id}/text', 200, '/books/1/text', AUTH)
  await check(t, get, '/books/{id}/text', 200, '/books/1/text?end_line=3', AGENT)
  const cover = await check(t, get, '/books/{id}/cover', 200, '/books/1/cover', AUTH)
  await check(t, get, '/books/{id}/cover', 206, '/books/1/cover', { ...AUTH, range: 'bytes=0-99' })
  await check(t, get, '/books/{id}/cover', 206, '/books/1/cover', { ...AUTH, range: 'bytes=0-99', 'if-range': String(cover.headers.etag) })
  await check(t, get, '/books/{id}/cover', 304, '/books/1/cover', { ...AUTH, 'if-none-match': String(cover.headers.etag) })
  await check(t, get, '/books/{id}/cover', 412, '/books/1/cover', { ...AUTH, 'if-match': '"other"' })
  await check(t, get, '/books/{id}/cover', 416, '/books/1/cover', { ...AUTH, range: 'bytes=100000-' })
  await check(t, get, '/books/{id}/cover', 404, '/books/99/cover', AUTH)
  await check(t, get, '/ledger', 200, '/ledger?limit=2', { 'x-audience': 'agent' })
  // The probes, which the rate limit leaves alone.
  const health = await check(t, get, '/healthz', 200, '/healthz')
  await check(t, get, '/healthz', 304, '/healthz', { 'if-none-match': String(health.headers.etag) })
  await check(t, get, '/readyz', 200, '/readyz')
  await check(t, get, '/readyz', 412, '/readyz', { 'if-match': '"other"' })
  await check(t, get, '/readyz', 413, '/readyz', {}, 'a body')
})

t.test('a rate-limited answer declares Retry-After and the rate limit\'s headers', async (t) => {
  const { app: strict } = await buildApp(t, { rateLimitMax: 1 })
  const get = getter(strict)
  await check(t, get, '/books', 200, '/books', AUTH)
  const refused = await check(t, get, '/books', 429, '/books', AUTH)
  t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After is sent')
})

t.test('a store that does not answer: a 503 on the routes (with the rate limit\'s headers) and on /readyz (without)', async (t) => {
  const { app: broken } = await buildApp(t)
  await broken.store.db.destroy()
  const get = getter(broken)
  await check(t, get, '/books', 503, '/books', AUTH)
  await check(t, get, '/readyz', 503, '/readyz')
})

t.test('a server failure: a 5XX with the rate limit\'s headers', async (t) => {
  const { app: broken } = await buildApp(t)
  await broken.store.db.schema.dropTable('books').execute()
  await check(t, getter(broken), '/books', 500, '/books', AUTH)
})

t.test('the rate limit\'s headers are declared on exactly the responses whose answers carry them', async (t) => {
  t.ok(limited.size >= 25, `${limited.size} documented responses answered`)
  for (const [response, carried] of limited) {
    const [path, key] = response.split(' ')
    const declared = Object.keys(documented.headers(path, 'get', key === '5XX' ? 500 : Number(key)) ?? {})
    t.strictSame(RATE_LIMIT.filter((name) => declared.includes(name)), carried ? RATE_LIMIT : [], `GET ${response} ${carried ? 'carries' : 'never carries'} them`)
  }
  // Refused before the limit counts the request: by auth, the audience, the body check, the router.
  for (const response of ['/books 401', '/invoices 403', '/books 406', '/books 413', '/books/{id} 414']) {
    t.equal(limited.get(response), false, `${response} never carries them`)
  }
  t.equal(limited.get('/books 400'), true, 'a 400 for an argument carries them (one for an unknown audience does not)')
})

t.test('each header is published once, as a component every response refers to', async (t) => {
  const headers = document.components?.headers ?? {}
  t.strictSame(Object.keys(headers), ['Accept-Ranges', 'Content-Length', 'Content-Range', 'ETag', 'Idempotent-Replayed', 'Retry-After', 'Vary', 'WWW-Authenticate', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
  t.match(headers['X-RateLimit-Remaining'], { schema: { type: 'integer', minimum: 0 }, description: /left in this window/ })
  const inline = documented.operations().flatMap(({ path, method, operation }) => Object.entries(operation.responses).flatMap(([status, response]) =>
    Object.entries(response.headers ?? {}).filter(([, header]) => header.$ref === undefined).map(([name]) => `${method} ${path} ${status} ${name}`)))
  t.strictSame(inline, [], 'no header is declared inline')
})
