// Every failure is an RFC 9457 problem: registry errors, validation, Fastify's client errors, the
// unexpected, and unknown paths.
import t from 'tap'
import requestId from '../../plugins/request-id.js'
import Fastify from 'fastify'
import problems from '../../plugins/problems.js'
import { invalidArguments, problem, problemType } from '../../src/core/errors.js'
import { INTERNAL_DETAIL, Problem, problemOf } from '../../src/core/problem.js'
import { validationErrors } from '../helpers/ajv.js'
import { problemBody, PROBLEM_JSON } from '../helpers/problem.js'

const logs: Array<{ level: number, msg: string, err?: { message: string } }> = []
const app = Fastify({
  bodyLimit: 64,
  ajv: { customOptions: { removeAdditional: false } },
  logger: { level: 'info', stream: { write: (line: string) => { logs.push(JSON.parse(line)) } } }
})
await app.register(requestId)
await app.register(problems)
app.get('/forbidden', async () => { throw problem('AG_FORBIDDEN', 'This key may not read invoices.') })
app.get('/invalid', async () => { throw invalidArguments({ page: ['Must be an integer of at least 1.'] }) })
app.get('/store', async () => {
  throw Object.assign(problem('AG_STORE_UNAVAILABLE', 'The store does not answer; retry shortly.'), { headers: { 'Retry-After': 5 } })
})
app.get('/shutting-down', async () => { throw problem('AG_SHUTTING_DOWN', 'The replica is shutting down: route requests to another.') })
app.get('/boom', async () => { throw new Error('secret connection string postgres://u:p@db') })
app.get('/search', {
  schema: {
    querystring: {
      type: 'object',
      properties: { title: { type: 'string' }, limit: { type: 'integer' } },
      required: ['title'],
      additionalProperties: false
    }
  }
}, async () => ({ ok: true }))
app.post('/echo', async (request) => request.body)
t.teardown(() => app.close())

t.test('an error of the registry keeps its status, code and title', async (t) => {
  const res = await app.inject('/forbidden')
  t.equal(res.statusCode, 403)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:forbidden',
    title: 'Forbidden',
    status: 403,
    detail: 'This key may not read invoices.',
    request_id: res.headers['x-request-id']
  })
})

t.test('invalidArguments carries its errors map', async (t) => {
  const res = await app.inject('/invalid')
  t.equal(res.statusCode, 400)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:invalid-arguments',
    title: 'Invalid arguments',
    status: 400,
    detail: 'The request has an invalid argument: page.',
    errors: { page: ['Must be an integer of at least 1.'] },
    request_id: res.headers['x-request-id']
  })
})

t.test('the headers an error carries are sent', async (t) => {
  const res = await app.inject('/store')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:store-unavailable',
    title: 'Store unavailable',
    status: 503,
    detail: 'The store does not answer; retry shortly.',
    request_id: res.headers['x-request-id']
  })
})

t.test('an undeclared argument is refused by name, not dropped', async (t) => {
  const res = await app.inject('/search?title=Earthsea&colour=red')
  t.equal(res.statusCode, 400)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:invalid-arguments',
    title: 'Invalid arguments',
    status: 400,
    detail: 'The request has an invalid argument: colour.',
    errors: { colour: ['Unknown argument.'] },
    request_id: res.headers['x-request-id']
  })
})

t.test('a missing argument is named by the validation error', async (t) => {
  const res = await app.inject('/search')
  t.equal(res.statusCode, 400)
  t.strictSame(problemBody(res).errors, { title: ['Required: pass a value.'] })
})

t.test('a malformed argument is named with what is wrong with it', async (t) => {
  const res = await app.inject('/search?title=Earthsea&limit=many')
  t.equal(res.statusCode, 400)
  t.strictSame(problemBody(res).errors, { limit: ['Must be integer.'] })
})

t.test('an unexpected error is a 500 that says nothing internal, logged with its cause', async (t) => {
  logs.length = 0
  const res = await app.inject('/boom')
  t.equal(res.statusCode, 500)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(problemBody(res), {
    type: 'about:blank',
    title: 'Internal Server Error',
    status: 500,
    detail: 'The server could not complete the request.',
    request_id: res.headers['x-request-id']
  })
  t.notMatch(res.body, /secret|postgres|stack|at /)
  const failed = logs.filter((line) => line.msg === 'request failed')
  t.equal(failed.length, 1)
  t.equal(failed[0].level, 50, 'logged as an error')
  t.equal(failed[0].err?.message, 'secret connection string postgres://u:p@db')
})

t.test('a 5xx the gateway chose (shutting down, overloaded) is a warning without a stack, not an error', async (t) => {
  logs.length = 0
  const res = await app.inject('/shutting-down')
  t.equal(res.statusCode, 503)
  t.match(logs.filter((line) => line.msg === 'request refused'), [{ level: 40, status: 503, type: 'urn:audience-gateway:problem:shutting-down' }])
  t.notOk(logs.some((line) => line.level >= 50 || line.err !== undefined))
})

t.test('a client error is not logged as an error', async (t) => {
  logs.length = 0
  await app.inject('/forbidden')
  t.ok(logs.some((line) => line.msg === 'request rejected' && line.level === 30))
  t.notOk(logs.some((line) => line.level >= 50))
})

t.test('an unknown path is a 404 problem that does not echo the path back', async (t) => {
  const res = await app.inject({ method: 'DELETE', url: '/nowhere/<script>?token=x' })
  t.equal(res.statusCode, 404)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:not-found',
    title: 'Not found',
    status: 404,
    detail: 'No route serves this method and path. The routes are listed at /openapi.json.',
    request_id: res.headers['x-request-id']
  })
})

t.test('a body over the limit is a 413 problem', async (t) => {
  const res = await app.inject({ method: 'POST', url: '/echo', payload: { text: 'x'.repeat(100) } })
  t.equal(res.statusCode, 413)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(problemBody(res), {
    type: 'about:blank',
    title: 'Payload Too Large',
    status: 413,
    detail: 'Request body is too large',
    request_id: res.headers['x-request-id']
  })
})

t.test('a body that is not JSON is a 400 problem with the parser\'s message', async (t) => {
  const res = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"a":' })
  t.equal(res.statusCode, 400)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  const body = problemBody(res)
  t.equal(body.type, 'about:blank')
  t.equal(body.title, 'Bad Request')
  t.match(body.detail, /JSON/)
})

t.test('a body of an unsupported media type is a 415 problem', async (t) => {
  const res = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'text/csv' }, payload: 'a,b' })
  t.equal(res.statusCode, 415)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.strictSame(problemBody(res), {
    type: 'about:blank',
    title: 'Unsupported Media Type',
    status: 415,
    detail: 'Unsupported Media Type',
    request_id: res.headers['x-request-id']
  })
})

t.test('problemOf: anything thrown that is not an error is a generic 500', async (t) => {
  t.strictSame(problemOf('a string'), {
    status: 500,
    body: { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: INTERNAL_DETAIL },
    headers: {}
  })
  t.equal(problemOf(null).status, 500)
})

t.test('problemOf: a 5xx status outside the registry keeps its status, not its message', async (t) => {
  const { status, body } = problemOf(Object.assign(new Error('pool exhausted at db:5432'), { statusCode: 503 }))
  t.equal(status, 503)
  t.strictSame(body, { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: INTERNAL_DETAIL })
})

t.test('problemOf: a status outside 400-599 is a 500', async (t) => {
  t.equal(problemOf(Object.assign(new Error('moved'), { statusCode: 302 })).status, 500)
  t.equal(problemOf(Object.assign(new Error('odd'), { statusCode: '404' })).status, 500)
})

t.test('problemOf: a client error without message or known title still reads', async (t) => {
  t.strictSame(problemOf({ statusCode: 499, message: '' }).body, { type: 'about:blank', title: 'Error', status: 499, detail: INTERNAL_DETAIL })
})

t.test('problemOf: validation issues are keyed by path, deduplicated, and worded', async (t) => {
  const { status, body } = problemOf({
    validationContext: 'body',
    validation: [
      { keyword: 'type', instancePath: '/lines/0/a~1b~0c', params: {}, message: 'must be string' },
      { keyword: 'type', instancePath: '/lines/0/a~1b~0c', params: {}, message: 'must be string' },
      { keyword: 'minimum', instancePath: '/lines/0/a~1b~0c', params: {}, message: 'must be >= 1' },
      { keyword: 'required', instancePath: '/lines/1', params: { missingProperty: 'sku' } },
      { keyword: 'type', instancePath: '', params: {}, message: 'must be object' },
      { keyword: 'custom', instancePath: '/x' },
      { keyword: 'custom', instancePath: '/y', message: '' }
    ]
  })
  t.equal(status, 400)
  t.strictSame(body.errors, {
    'lines.0.a/b~c': ['Must be string.', 'Must be >= 1.'],
    'lines.1.sku': ['Required: pass a value.'],
    body: ['Must be object.'],
    x: ['Fails the "custom" check.'],
    y: ['Fails the "custom" check.']
  })
  t.strictSame(validationErrors(Problem, body), [])
})

t.test('problemOf: a validation issue without path or context concerns the request', async (t) => {
  t.strictSame(problemOf({ validation: [{ message: 'must be object' }] }).body.errors, { request: ['Must be object.'] })
})

t.test('problemOf: only an object of headers is carried', async (t) => {
  t.strictSame(problemOf(Object.assign(problem('AG_FORBIDDEN', 'no'), { headers: 'nope' })).headers, {})
})

t.test('problemType names a registry code as a URN', async (t) => {
  t.equal(problemType('AG_UNKNOWN_AUDIENCE'), 'urn:audience-gateway:problem:unknown-audience')
})
