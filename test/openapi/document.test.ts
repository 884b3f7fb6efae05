// The OpenAPI document: valid OpenAPI 3.1, named components, and every response the app really
// serves valid against the schema the document gives for its path, status and media type.
import { Validator } from '@seriousme/openapi-schema-validator'
import type { ValidateFunction } from 'ajv/dist/2020.js'
import t, { type Test } from 'tap'
import { AGENT_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../../src/audience.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'
import { documentedResponses, mediaTypeOf, resolveRefs, type OpenApiDocument, type OpenApiOperation } from '../helpers/openapi.js'

const COMPONENTS = '#/components/schemas/'

/** The document as this file reads it: every read path has a GET (an action's a POST), and the parts only checked here. */
interface Document extends OpenApiDocument {
  info: Record<string, string>
  paths: Record<string, { get: OpenApiOperation, post: OpenApiOperation }>
  components: { schemas: Record<string, object>, securitySchemes: Record<string, object> }
}

/** The source document's `output_schema` for list_books, as printed there. */
const SOURCE_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer', description: 'An identifier to pass to other tools. Never read it out.' },
          title: { type: 'string' },
          status: { type: 'string', oneOf: [{ const: 'Draft' }, { const: 'Published' }] },
          price: { type: 'string', examples: ['EUR 9.99'] },
          published_on: { type: ['string', 'null'], examples: ['31 January 2026'] }
        },
        required: ['id', 'title', 'status', 'price', 'published_on']
      }
    },
    page: { type: 'integer' },
    totalPages: { type: 'integer' },
    hasNext: { type: 'boolean' }
  },
  required: ['items', 'page', 'totalPages', 'hasNext']
}

// Compiling the OpenAPI meta-schema and the documented schemas blocks this process's event loop for
// a while: the app under test must not take that for load and shed what follows.
const { app } = await buildApp(t, { loadShedding: { maxEventLoopDelay: 0 } })
const served = await app.inject({ method: 'GET', url: '/openapi.json' })
/** A key without the invoices' scope, for the 403 the document declares. */
const SCOPED_KEY = 'ledger-only-0123456789'
const { app: scopedApp } = await buildApp(t, { apiKeys: [{ key: SCOPED_KEY, scopes: ['ledger:read'] }], loadShedding: { maxEventLoopDelay: 0 } })
const document = served.json() as Document
const documented = documentedResponses(document)

/** Every (path, status, media type) a real response below was checked against. */
const exercised = new Set<string>()

/** A validator for the document's schema of a GET response; a status the document lacks falls to its range (`5XX`). */
function documentedValidator (path: string, method: 'GET' | 'POST', status: number, mediaType: string): ValidateFunction {
  const key = documented.responseKey(path, method, status)
  const validate = documented.validator(path, method, status, mediaType)
  if (key === undefined || validate === undefined) throw new Error(`The document declares no ${key ?? status} ${mediaType} body for ${method} ${path}`)
  exercised.add(`${method} ${path} ${key} ${mediaType}`)
  return validate
}

/** Every operation of the document, named by its method and path. */
function operations (): Array<[string, OpenApiOperation]> {
  return Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]): [string, OpenApiOperation] => [`${method.toUpperCase()} ${path}`, operation]))
}

/** GETs `url` (or POSTs `payload` to it) and checks the body against the document's schema for what was answered. */
async function check (t: Test, url: string, headers: Record<string, string>, path: string, expected: { status: number, mediaType: string }, payload?: object) {
  const method = payload === undefined ? 'GET' : 'POST'
  const res = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) })
  const mediaType = mediaTypeOf(res.headers['content-type'])
  t.equal(res.statusCode, expected.status, `${url}: status`)
  t.equal(mediaType, expected.mediaType, `${url}: media type`)
  const body = mediaType.endsWith('json') ? res.json() : res.body
  const validate = documentedValidator(path, method, res.statusCode, mediaType)
  t.ok(validate(body), `${url} (${mediaType}) matches the document`, { errors: validate.errors })
  return res
}

function withoutDescriptions (node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDescriptions)
  if (typeof node !== 'object' || node === null) return node
  return Object.fromEntries(Object.entries(node).filter(([key]) => key !== 'description').map(([key, value]) => [key, withoutDescriptions(value)]))
}

t.test('GET /openapi.json serves the document, which is valid OpenAPI 3.1', async (t) => {
  t.equal(served.statusCode, 200)
  t.match(served.headers['content-type'], /^application\/json/)
  t.equal(document.openapi, '3.1.0')
  const result = await new Validator().validate(document as unknown as Record<string, unknown>)
  t.ok(result.valid, 'valid against the OpenAPI 3.1 schema', { errors: result.errors })
})

t.test('info names the service and its version', async (t) => {
  t.match(document.info, { title: 'Audience Gateway', version: /^\d+\.\d+\.\d+/, description: /agents/ })
})

t.test('components have meaningful names, never def-N', async (t) => {
  const names = Object.keys(document.components.schemas)
  for (const name of ['Book', 'BookForAgents', 'BookPage', 'BookWithAuthorsForAgents', 'BookWithAuthorsPage', 'Invoice', 'InvoiceForAgents', 'InvoicePage', 'Problem', 'Availability', 'LineWindow', 'Health']) {
    t.ok(names.includes(name), name)
  }
  t.notOk(names.some((name) => /^def-\d+$/.test(name)), 'no def-N')
  t.strictSame(names, [...names].sort(), 'in name order')
  t.notMatch(JSON.stringify(document), /"\$ref":"(?!#\/components\/(?:schemas|headers)\/)/, 'every $ref points at a component')
})

t.test('GET /books: the agent 200 is exactly the source document\'s output_schema and the page\'s ceiling, beside an array of Book', async (t) => {
  const content = document.paths['/books'].get.responses['200'].content ?? {}
  t.strictSame(content['application/json'].schema, { type: 'array', items: { $ref: `${COMPONENTS}Book` } })
  t.strictSame(content[AGENT_MEDIA_TYPE].schema, { $ref: `${COMPONENTS}BookPage` })
  // The source's schema says nothing of a page's size; the gateway publishes the mount's ceiling (50).
  const withCeiling = { ...SOURCE_OUTPUT_SCHEMA, properties: { ...SOURCE_OUTPUT_SCHEMA.properties, items: { ...SOURCE_OUTPUT_SCHEMA.properties.items, maxItems: 50 } } }
  t.strictSame(withoutDescriptions(resolveRefs(content[AGENT_MEDIA_TYPE].schema, document)), withoutDescriptions(withCeiling))
})

t.test('the three book mounts share Book; the second has its own agent components', async (t) => {
  const agentOf = (path: string) => document.paths[path].get.responses['200'].content?.[AGENT_MEDIA_TYPE].schema
  const plainOf = (path: string) => document.paths[path].get.responses['200'].content?.['application/json'].schema
  t.strictSame(plainOf('/books/with-authors'), { type: 'array', items: { $ref: `${COMPONENTS}Book` } })
  t.strictSame(agentOf('/books/with-authors'), { $ref: `${COMPONENTS}BookWithAuthorsPage` })
  t.strictSame(plainOf('/books/{id}'), { $ref: `${COMPONENTS}Book` })
  t.strictSame(agentOf('/books/{id}'), { $ref: `${COMPONENTS}BookForAgents` })
  const withAuthors = document.components.schemas.BookWithAuthorsForAgents as { properties: Record<string, object> }
  t.ok('author_id' in withAuthors.properties)
  t.notOk('author_id' in (document.components.schemas.BookForAgents as typeof withAuthors).properties)
})

t.test('an affordance refers to Availability and keeps its own description', async (t) => {
  const invoice = document.components.schemas.InvoiceForAgents as { properties: { affordances: { properties: Record<string, unknown> } } }
  t.strictSame(invoice.properties.affordances.properties.refund, { description: 'Refund the invoice. Acted on by refundInvoice.', allOf: [{ $ref: `${COMPONENTS}Availability` }] })
})

t.test('every route that needs a key declares the bearer scheme; the others say they need none', async (t) => {
  t.match(document.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' })
  for (const path of ['/books', '/books/with-authors', '/books/{id}']) {
    t.strictSame(document.paths[path].get.security, [{ bearerAuth: [] }], path)
  }
  for (const path of ['/healthz', '/readyz', '/ledger']) t.strictSame(document.paths[path].get.security, [], path)
})

t.test('a route asking for a scope lists it with the bearer scheme and says it in its description; its 403 declares the challenge', async (t) => {
  const invoices = document.paths['/invoices'].get as unknown as { security: unknown, description: string, responses: Record<string, { headers?: Record<string, unknown> }> }
  t.strictSame(invoices.security, [{ bearerAuth: ['invoices:read'] }])
  t.equal(invoices.description, 'Every invoice, in id order, with whether it can be refunded; by status (its value, such as PAID) and by the start of its number. Needs a key with the scope `invoices:read`.')
  t.ok('WWW-Authenticate' in (invoices.responses['403'].headers ?? {}))
  t.notMatch((document.paths['/books'].get as { description?: string }).description ?? '', /scope/, 'a route asking for none says nothing of scopes')
})

t.test('the document names its server, lists its tags with descriptions, and names every operation', async (t) => {
  const { servers, tags } = document as unknown as { servers: unknown, tags: Array<{ name: string, description: string }> }
  t.strictSame(servers, [{ url: '/', description: 'The gateway serving this document.' }])
  t.strictSame(tags.map((tag) => tag.name), ['books', 'invoices', 'ledger', 'health'])
  for (const tag of tags) t.ok(tag.description.length > 0, tag.name)
  for (const [path, get] of operations()) {
    t.match(get.operationId, /^[a-z][A-Za-z]+$/, `${path} operationId`)
    for (const tag of (get as { tags?: string[] }).tags ?? []) t.ok(tags.some((listed) => listed.name === tag), `${path} tag ${tag} is listed`)
  }
})

t.test('what is sent beside the body is declared: ETag and 304, Vary, Retry-After, WWW-Authenticate, the rate-limit headers, If-None-Match', async (t) => {
  const books = document.paths['/books'].get as unknown as { parameters: Array<{ in: string, name: string }>, responses: Record<string, { headers?: Record<string, unknown>, content?: unknown }> }
  t.strictSame(Object.keys(books.responses['200'].headers ?? {}), ['ETag', 'Vary', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
  t.notOk('content' in books.responses['304'], 'a 304 has no body')
  t.strictSame(Object.keys(books.responses['304'].headers ?? {}), ['ETag', 'Vary', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
  t.ok('WWW-Authenticate' in (books.responses['401'].headers ?? {}))
  t.strictSame(Object.keys(books.responses['429'].headers ?? {}), ['Vary', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
  t.ok('Retry-After' in (books.responses['503'].headers ?? {}))
  t.ok(books.parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'If-None-Match'))
  for (const path of ['/healthz', '/readyz']) t.ok('304' in document.paths[path].get.responses, `${path} 304`)
})

t.test('every negotiated route documents X-Audience as optional, and only those', async (t) => {
  for (const [path, get] of operations()) {
    const header = get.parameters?.find((parameter) => parameter.in === 'header' && parameter.name === 'X-Audience')
    const negotiated = (get.responses['200'] ?? get.responses['201']).content?.[AGENT_MEDIA_TYPE] !== undefined
    if (!negotiated) {
      t.equal(header, undefined, `${path} is not negotiated`)
      continue
    }
    t.match(header, { required: false, schema: { enum: ['agent', 'plain'] }, description: /agent/ }, path)
  }
})

t.test('header parameters are capitalised alike, Range and If-Range as X-Audience and If-None-Match', async (t) => {
  // A client generated from the document names its header fields as written: one spelling for all.
  const cover = document.paths['/books/{id}/cover'].get.parameters ?? []
  t.strictSame(cover.filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name).sort(), ['If-None-Match', 'If-Range', 'Range', 'X-Audience'])
  for (const [path, get] of operations()) {
    for (const { name } of (get.parameters ?? []).filter((parameter) => parameter.in === 'header')) {
      t.match(name, /^[A-Z][A-Za-z]*(?:-[A-Z][A-Za-z]*)*$/, `${path} ${name}: each word capitalised`)
    }
  }
})

t.test('paging parameters: optional, agents only, the default and ceiling described, never declared as a default', async (t) => {
  const parameters = document.paths['/books'].get.parameters ?? []
  const page = parameters.find((parameter) => parameter.name === 'page')
  const limit = parameters.find((parameter) => parameter.name === 'limit')
  t.match(page, { in: 'query', required: false, description: /^Agents only.*Default: 1\.$/, schema: { type: 'integer' } })
  t.match(limit, { in: 'query', required: false, description: /^Agents only.*50.*Default: 50\.$/, schema: { type: 'integer' } })
  // A generated client fills in a declared default on every call, and a plain client that sends a
  // paging parameter is refused: no operation may declare one.
  for (const [path, get] of operations()) {
    for (const parameter of get.parameters ?? []) t.notOk('default' in (parameter.schema ?? {}), `${path} ${parameter.name}`)
  }
})

t.test('every error response is a Problem, as application/problem+json', async (t) => {
  for (const [path, get] of operations()) {
    for (const [status, response] of Object.entries(get.responses)) {
      if (status.startsWith('2') || status === '304') continue
      t.strictSame(response.content, { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: `${COMPONENTS}Problem` } } }, `${path} ${status}`)
    }
  }
  for (const status of ['400', '401', '403', '406', '429', '5XX']) t.ok(status in document.paths['/books'].get.responses, `/books ${status}`)
  t.ok('404' in document.paths['/books/{id}'].get.responses, '/books/{id} 404')
  t.ok('503' in document.paths['/readyz'].get.responses, '/readyz 503')
})

t.test('an unrestricted route declares no 401 nor 403: it refuses no one', async (t) => {
  const { responses } = document.paths['/ledger'].get
  t.notOk('401' in responses)
  t.notOk('403' in responses)
  t.ok('400' in responses && '429' in responses, 'its other problems stay')
})

t.test('Swagger UI at /docs loads only its own files', async (t) => {
  const page = await app.inject({ method: 'GET', url: '/docs' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  const references = Array.from(page.body.matchAll(/\b(?:src|href)="([^"]*)"/g), (match) => match[1])
  t.ok(references.length >= 4, 'its scripts and styles')
  for (const reference of references) {
    t.notMatch(reference, /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i, `${reference} is the service's own`)
    const asset = await app.inject({ method: 'GET', url: new URL(reference, 'http://gateway/docs').pathname })
    t.equal(asset.statusCode, 200, `${reference} is served`)
  }
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
  t.match(initializer.body, /validatorUrl: null/, 'no external validator badge')
})

t.test('the document leaves out itself and Swagger UI', async (t) => {
  t.notOk(Object.keys(document.paths).some((path) => path === '/openapi.json' || path.startsWith('/docs')))
})

t.test('real responses validate against the document', async (t) => {
  const json = 'application/json'
  await check(t, '/books', AUTH, '/books', { status: 200, mediaType: json })
  await check(t, '/books?page=2&limit=2', AGENT, '/books', { status: 200, mediaType: AGENT_MEDIA_TYPE })
  await check(t, '/books/with-authors', AUTH, '/books/with-authors', { status: 200, mediaType: json })
  await check(t, '/books/with-authors', AGENT, '/books/with-authors', { status: 200, mediaType: AGENT_MEDIA_TYPE })
  await check(t, '/books/2', AUTH, '/books/{id}', { status: 200, mediaType: json })
  await check(t, '/books/2', AGENT, '/books/{id}', { status: 200, mediaType: AGENT_MEDIA_TYPE })
  await check(t, '/books/1/text', AUTH, '/books/{id}/text', { status: 200, mediaType: 'text/plain' })
  await check(t, '/books/1/text?end_line=3', AGENT, '/books/{id}/text', { status: 200, mediaType: AGENT_MEDIA_TYPE })
  await check(t, '/books/1/cover', AUTH, '/books/{id}/cover', { status: 200, mediaType: 'image/png' })
  await check(t, '/books/1/cover?max_bytes=100', AGENT, '/books/{id}/cover', { status: 200, mediaType: AGENT_MEDIA_TYPE })
  await check(t, '/books/1/cover', { ...AUTH, range: 'bytes=0-99' }, '/books/{id}/cover', { status: 206, mediaType: 'image/png' })
  await check(t, '/books/1/cover', { ...AUTH, range: 'bytes=100000-' }, '/books/{id}/cover', { status: 416, mediaType: PROBLEM_MEDIA_TYPE })
  await check(t, '/invoices', AUTH, '/invoices', { status: 200, mediaType: json })
  await check(t, '/invoices', AGENT, '/invoices', { status: 200, mediaType: AGENT_MEDIA_TYPE })
  await check(t, '/ledger', {}, '/ledger', { status: 200, mediaType: json })
  await check(t, '/ledger?limit=2', { 'x-audience': 'agent' }, '/ledger', { status: 200, mediaType: AGENT_MEDIA_TYPE })
  await check(t, '/healthz', {}, '/healthz', { status: 200, mediaType: json })
  await check(t, '/readyz', {}, '/readyz', { status: 200, mediaType: json })
  // The refund, acted on for an agent, then replayed by its key to a plain client: both variants of its result.
  await check(t, '/invoices/8/refund', { ...AGENT, 'idempotency-key': 'document' }, '/invoices/{id}/refund', { status: 200, mediaType: AGENT_MEDIA_TYPE }, { amount: '1.00', reason: 'Checked' })
  await check(t, '/invoices/8/refund', { ...AUTH, 'idempotency-key': 'document' }, '/invoices/{id}/refund', { status: 200, mediaType: json }, { amount: '1.00', reason: 'Checked' })
  await check(t, '/invoices/7/refund', { ...AUTH, 'idempotency-key': 'document' }, '/invoices/{id}/refund', { status: 422, mediaType: PROBLEM_MEDIA_TYPE }, { amount: '1.00', reason: 'Checked' })
  const refunded = await check(t, '/invoices/8/refund', AUTH, '/invoices/{id}/refund', { status: 409, mediaType: PROBLEM_MEDIA_TYPE }, { amount: '1.00', reason: 'Checked' })
  t.equal(refunded.json().code, 'not_paid', 'an action no longer available says why, in the affordance\'s words')
  await check(t, '/invoices/7/refund', AUTH, '/invoices/{id}/refund', { status: 400, mediaType: PROBLEM_MEDIA_TYPE }, { amount: 1 })
  const documented200s = operations().flatMap(([name, get]) => Object.keys(get.responses['200']?.content ?? {}).map((mediaType) => `${name} 200 ${mediaType}`))
  t.strictSame(documented200s.filter((entry) => !exercised.has(entry)), [], 'every documented 200 variant was served and checked')
})

t.test('real problems validate against the document', async (t) => {
  const body = (await check(t, '/books?colour=red', AGENT, '/books', { status: 400, mediaType: PROBLEM_MEDIA_TYPE })).json()
  t.strictSame(body.errors, { colour: ['Unknown argument.'] })
  await check(t, '/books', { 'x-audience': 'robot', ...AUTH }, '/books', { status: 400, mediaType: PROBLEM_MEDIA_TYPE })
  await check(t, '/books', {}, '/books', { status: 401, mediaType: PROBLEM_MEDIA_TYPE })
  const scoped = await scopedApp.inject({ url: '/invoices', headers: { authorization: `Bearer ${SCOPED_KEY}` } })
  t.equal(scoped.statusCode, 403)
  const validate = documentedValidator('/invoices', 'GET', 403, PROBLEM_MEDIA_TYPE)
  t.ok(validate(scoped.json()), 'a 403 naming the missing scope matches the document', { errors: validate.errors })
  await check(t, '/books/99', AGENT, '/books/{id}', { status: 404, mediaType: PROBLEM_MEDIA_TYPE })
  await check(t, '/books', { ...AUTH, accept: 'text/csv' }, '/books', { status: 406, mediaType: PROBLEM_MEDIA_TYPE })
})

t.test('a store that does not answer makes /readyz a documented Problem', async (t) => {
  const broken = await buildApp(t)
  await broken.app.store.db.destroy()
  const res = await broken.app.inject({ method: 'GET', url: '/readyz' })
  t.equal(res.statusCode, 503)
  const validate = documentedValidator('/readyz', 'GET', res.statusCode, PROBLEM_MEDIA_TYPE)
  t.ok(validate(res.json()), 'matches the 503 Problem', { errors: validate.errors })
})

t.test('a rate-limited request is a documented Problem', async (t) => {
  const limited = await buildApp(t, { rateLimitMax: 1 })
  await limited.app.inject({ method: 'GET', url: '/books', headers: AUTH })
  const res = await limited.app.inject({ method: 'GET', url: '/books', headers: AUTH })
  t.equal(res.statusCode, 429)
  const validate = documentedValidator('/books', 'GET', res.statusCode, PROBLEM_MEDIA_TYPE)
  t.ok(validate(res.json()), 'matches the 429 Problem', { errors: validate.errors })
})

t.test('a server failure is a documented Problem too', async (t) => {
  const broken = await buildApp(t)
  await broken.app.store.db.schema.dropTable('books').execute()
  const res = await broken.app.inject({ method: 'GET', url: '/books', headers: AUTH })
  t.equal(String(res.statusCode)[0], '5', `a server failure (${res.statusCode})`)
  const validate = documentedValidator('/books', 'GET', res.statusCode, PROBLEM_MEDIA_TYPE)
  t.ok(validate(res.json()), 'matches the 5XX Problem', { errors: validate.errors })
})
