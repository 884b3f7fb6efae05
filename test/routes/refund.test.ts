// POST /invoices/{id}/refund, the demo's action, on SQLite (a file two replicas share) and on
// PostgreSQL: an agent reads an invoice whose refund is available, calls the action it names, and
// reads the change; every status the action answers; two refunds at once refund once; a retry with
// the same Idempotency-Key is answered by any replica without acting again.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import { validationErrors } from '../helpers/ajv.js'
import { AGENT, AUTH, buildApp, KEY, type TestApp } from '../helpers/app.js'
import { freshSchema, needs } from '../helpers/services.js'

const REFUND = { amount: '12.50', reason: 'Damaged in transit' }

/** The schema the action's route declares for a status and media type. */
function declared (app: TestApp, status: number, mediaType: string): object {
  const route = app.routes.find((r) => r.url === '/invoices/:id/refund')
  const response = (route?.schema?.response as Record<number, { content: Record<string, { schema: object }> }>)[status]
  return response.content[mediaType].schema
}

async function refund (app: FastifyInstance, id: number | string, body: unknown = REFUND, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: `/invoices/${id}/refund`, payload: body as object, headers: { ...AUTH, ...headers } })
}

/** Two replicas on one store: a SQLite file, or a fresh PostgreSQL schema. */
async function replicas (t: Test, kind: 'sqlite' | 'postgres'): Promise<[TestApp, TestApp]> {
  let url: string
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'refund-'))
    url = join(dir, 'gateway.db')
    t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  } else {
    const schema = freshSchema()
    url = schema.url
    t.teardown(schema.drop)
  }
  const first = await buildApp(t, { databaseUrl: url })
  return [first, await buildApp(t, { databaseUrl: url })]
}

async function ledgerTail (app: FastifyInstance): Promise<Array<Record<string, unknown>>> {
  const res = await app.inject({ url: '/ledger?offset=1238', headers: { 'x-audience': 'agent' } })
  return res.json().items
}

for (const kind of ['sqlite', 'postgres'] as const) {
  t.test(kind, async (t) => {
    if (kind === 'postgres' && !await needs(t, 'PostgreSQL')) return

    t.test('an agent reads an invoice whose refund is available, calls the action it names, and reads the change', async (t) => {
      const [one] = await replicas(t, kind)
      const { app } = one
      const paid = (await app.inject({ url: '/invoices?status=PAID', headers: AGENT })).json().items[0]
      t.strictSame(paid.affordances, { refund: { available: true, action: 'refundInvoice' } })
      const route = one.routes.find((r) => r.schema?.operationId === paid.affordances.refund.action)
      t.equal(route?.method, 'POST', 'the action named is a route')
      const res = await refund(app, paid.id, REFUND, { 'x-audience': 'agent' })
      t.equal(res.statusCode, 200)
      t.match(res.headers['content-type'], AGENT_MEDIA_TYPE)
      t.notOk('idempotent-replayed' in res.headers)
      const body = res.json()
      t.strictSame(validationErrors(declared(one, 200, AGENT_MEDIA_TYPE), body), [])
      t.equal(body.status, 'Refunded')
      t.strictSame(body.affordances.refund, { available: false, code: 'not_paid', reason: 'Only a paid invoice can be refunded.', action: 'refundInvoice' })
      t.notOk('etag' in body, 'hidden fields never reach an agent')
      t.notOk('secret' in body.customer)
      t.notOk(body.lines.some((line: object) => 'internal_cost' in line))
      const after = (await app.inject({ url: '/invoices?status=REFUNDED', headers: AGENT })).json().items
      t.strictSame(after.map((invoice: { id: number }) => invoice.id), [paid.id])
      const [entry] = (await ledgerTail(app)).slice(-1)
      t.match(entry, { id: 1241, memo: 'Refund of INV-2: Damaged in transit', amount: 'EUR -12.50' })
      const plain = await app.inject({ url: '/invoices?status=REFUNDED', headers: AUTH })
      t.match(plain.json()[0], { status: 'REFUNDED', etag: 'W/3', tags: ['LEGACY_REVIEW', 'PENDING_REVIEW'] })
    })

    t.test('a plain client is answered the plain record', async (t) => {
      const [one] = await replicas(t, kind)
      const res = await refund(one.app, 8)
      t.equal(res.statusCode, 200)
      t.match(res.headers['content-type'], 'application/json')
      t.strictSame(validationErrors(declared(one, 200, 'application/json'), res.json()), [])
      t.match(res.json(), { id: 8, status: 'REFUNDED', customer: { secret: 'y' } })
    })

    t.test('two refunds of one invoice at once, on two replicas: exactly one acts, the other is a 409 and writes nothing', async (t) => {
      const [a, b] = await replicas(t, kind)
      const answers = await Promise.all([refund(a.app, 8), refund(b.app, 8), refund(a.app, 8), refund(b.app, 8)])
      const statuses = answers.map((res) => res.statusCode).sort()
      t.strictSame(statuses, [200, 409, 409, 409])
      for (const refused of answers.filter((res) => res.statusCode === 409)) {
        t.match(refused.json(), { type: 'urn:audience-gateway:problem:action-unavailable', code: 'not_paid', reason: 'Only a paid invoice can be refunded.' })
      }
      const refunds = (await ledgerTail(a.app)).filter((entry) => String(entry.memo).startsWith('Refund'))
      t.equal(refunds.length, 1, 'one ledger entry')
    })

    t.test('a retry with the same Idempotency-Key, on another replica, is the first call\'s result without acting again', async (t) => {
      const [a, b] = await replicas(t, kind)
      const key = { 'idempotency-key': `refund-8-${kind}` }
      const first = await refund(a.app, 8, REFUND, { ...key, 'x-audience': 'agent' })
      t.equal(first.statusCode, 200)
      const again = await refund(b.app, 8, { reason: REFUND.reason, amount: REFUND.amount }, { ...key, 'x-audience': 'agent' })
      t.equal(again.statusCode, 200)
      t.equal(again.headers['idempotent-replayed'], 'true')
      t.strictSame(again.json(), first.json())
      const plain = await refund(b.app, 8, REFUND, key)
      t.equal(plain.statusCode, 200, 'replayed in the caller\'s audience')
      t.strictSame(validationErrors(declared(b, 200, 'application/json'), plain.json()), [])
      t.equal(plain.json().status, 'REFUNDED')
      const reused = await refund(b.app, 8, { ...REFUND, amount: '1.00' }, key)
      t.equal(reused.statusCode, 422)
      t.equal(reused.json().type, 'urn:audience-gateway:problem:idempotency-key-reused')
      const other = await refund(b.app, 8, REFUND, { 'idempotency-key': `another-${kind}` })
      t.equal(other.statusCode, 409, 'a new key acts again, and the affordance refuses it')
      const refunds = (await ledgerTail(a.app)).filter((entry) => String(entry.memo).startsWith('Refund'))
      t.equal(refunds.length, 1)
    })
  })
}

t.test('what the action refuses, each a problem naming what to fix', async (t) => {
  const one = await buildApp(t)
  const { app } = one
  const notPaid = await refund(app, 7)
  t.equal(notPaid.statusCode, 409)
  t.match(notPaid.json(), { status: 409, code: 'not_paid', reason: 'Only a paid invoice can be refunded.', detail: 'refundInvoice is not available on this record now: Only a paid invoice can be refunded. Nothing was done.' })
  const unknown = await refund(app, 9)
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().detail, 'No record matches id 9.')
  const extra = await refund(app, 8, { ...REFUND, amount: 12.5, refund_all: true })
  t.equal(extra.statusCode, 400)
  t.strictSame(extra.json().errors, { refund_all: ['Unknown argument.'], amount: ['Must be string.'] })
  const badId = await refund(app, 'x', {})
  t.equal(badId.statusCode, 400)
  t.strictSame(Object.keys(badId.json().errors).sort(), ['amount', 'id', 'reason'], 'the path and the body in one 400')
  const notObject = await refund(app, 8, [REFUND])
  t.strictSame(notObject.json().errors, { body: ['Must be a JSON object of the action\'s fields.'] })
  const malformed = await app.inject({ method: 'POST', url: '/invoices/8/refund', payload: '{"amount":', headers: { ...AUTH, 'content-type': 'application/json' } })
  t.equal(malformed.statusCode, 400)
  t.strictSame(Object.keys(malformed.json().errors), ['body'])
  const text = await app.inject({ method: 'POST', url: '/invoices/8/refund', payload: 'amount=12.50', headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(text.statusCode, 415)
  t.equal(text.json().type, 'urn:audience-gateway:problem:unsupported-media-type')
  const large = await refund(app, 8, { ...REFUND, reason: 'x'.repeat(20_000) })
  t.equal(large.statusCode, 413)
  t.equal(large.json().type, 'urn:audience-gateway:problem:body-too-large')
  const badKey = await refund(app, 8, REFUND, { 'idempotency-key': 'has a space' })
  t.equal(badKey.statusCode, 400)
  t.strictSame(Object.keys(badKey.json().errors), ['Idempotency-Key'])
  const anonymous = await app.inject({ method: 'POST', url: '/invoices/8/refund', payload: REFUND })
  t.equal(anonymous.statusCode, 401)
  const noId = await refund(app, '')
  t.equal(noId.statusCode, 404, '/invoices//refund names no invoice: no such route')
  const get = await app.inject({ url: '/invoices/8/refund', headers: AUTH })
  t.equal(get.statusCode, 405)
  t.match(get.headers.allow, 'POST')
  for (const res of [notPaid, unknown, extra, badId, notObject, malformed, text, large, badKey, anonymous]) {
    t.match(res.headers['content-type'], 'application/problem+json')
    t.strictSame(validationErrors(declared(one, res.statusCode, 'application/problem+json'), res.json()), [], `${res.statusCode} as published`)
  }
  const untouched = await app.inject({ url: '/invoices?status=PAID', headers: AUTH })
  t.equal(untouched.json().length, 1, 'nothing refused wrote anything')
})

t.test('a key without the refund scope is refused naming it; the invoices:read scope alone reads but cannot refund', async (t) => {
  const READER = 'invoice-reader-0123456789'
  const { app } = await buildApp(t, { apiKeys: [KEY, { key: READER, scopes: ['invoices:read'] }] })
  const res = await app.inject({ method: 'POST', url: '/invoices/8/refund', payload: REFUND, headers: { authorization: `Bearer ${READER}` } })
  t.equal(res.statusCode, 403)
  t.equal(res.json().detail, 'This key may not call this route: it lacks the scope "invoices:refund"; use a key that carries it.')
})

t.test('over the rate limit, an action is a 429 like any route', async (t) => {
  const { app } = await buildApp(t, { rateLimitMax: 1 })
  t.equal((await refund(app, 7)).statusCode, 409)
  const limited = await refund(app, 8)
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0)
})

t.test('the body\'s refusals by the parser, as the registry names them', async (t) => {
  const { app } = await buildApp(t)
  const post = async (payload: string, headers: Record<string, string>): Promise<LightMyRequestResponse> => await app.inject({ method: 'POST', url: '/invoices/8/refund', payload, headers: { ...AUTH, ...headers } })
  const untyped = await post('{"amount":"1.00","reason":"x"}', {})
  t.equal(untyped.statusCode, 415, 'a body without a media type')
  const blank = await post('{"amount":"1.00","reason":"x"}', { 'content-type': '' })
  t.equal(blank.statusCode, 415, 'a body with a blank one')
  t.equal(untyped.json().type, 'urn:audience-gateway:problem:unsupported-media-type')
  const empty = await post('', { 'content-type': 'application/json' })
  t.equal(empty.statusCode, 400)
  t.strictSame(Object.keys(empty.json().errors), ['body'])
  const short = await post('{}', { 'content-type': 'application/json', 'content-length': '9' })
  t.equal(short.statusCode, 400, 'a body shorter than its Content-Length')
  t.equal(short.json().type, 'urn:audience-gateway:problem:malformed-request')
  const proto = await post('{"__proto__":{"x":1},"amount":"1.00","reason":"x"}', { 'content-type': 'application/json' })
  t.equal(proto.statusCode, 400)
  t.match(proto.json().errors.body, [/__proto__/])
})

t.test('a browser on an allowed origin may call an action: its method, its body and its key, and read whether it was replayed', async (t) => {
  const ORIGIN = 'https://app.example.com'
  const { app } = await buildApp(t, { corsOrigins: [ORIGIN] })
  const preflight = await app.inject({ method: 'OPTIONS', url: '/invoices/8/refund', headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' } })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], ORIGIN)
  t.match(preflight.headers['access-control-allow-methods'], 'POST')
  t.match(String(preflight.headers['access-control-allow-headers']).toLowerCase(), 'idempotency-key')
  const read = await app.inject({ method: 'OPTIONS', url: '/invoices', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } })
  t.notMatch(read.headers['access-control-allow-methods'], 'POST', 'a read stays read-only')
  const done = await app.inject({ method: 'POST', url: '/invoices/8/refund', payload: REFUND, headers: { ...AUTH, origin: ORIGIN } })
  t.equal(done.statusCode, 200)
  t.match(done.headers['access-control-expose-headers'], 'Idempotent-Replayed')
})
