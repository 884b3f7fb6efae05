// GET /invoices both ways: displays, nested hidden fields, affordances, timestamps in TIME_ZONE.
import t from 'tap'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import { validationErrors } from '../helpers/ajv.js'
import { agentInvoices, PLAIN_INVOICES } from '../fixtures/invoices.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const { app, declaredSchema, routes } = await buildApp(t, { timeZone: 'Europe/Paris' })

t.test('the invoices need the invoices:read scope: a key carrying it (or every scope) is served, another refused naming it', async (t) => {
  const READER = 'invoice-reader-0123456789'
  const LEDGER = 'ledger-reader-0123456789'
  const { app: scoped } = await buildApp(t, { apiKeys: [{ key: READER, scopes: ['invoices:read'] }, { key: LEDGER, scopes: ['ledger:read'] }] })
  const served = await scoped.inject({ url: '/invoices', headers: { authorization: `Bearer ${READER}`, 'x-audience': 'agent' } })
  t.equal(served.statusCode, 200)
  t.equal(served.json().items.length, 2)
  for (const audience of ['plain', 'agent']) {
    const refused = await scoped.inject({ url: '/invoices', headers: { authorization: `Bearer ${LEDGER}`, 'x-audience': audience } })
    t.equal(refused.statusCode, 403, audience)
    t.equal(refused.json().detail, 'This key may not call this route: it lacks the scope "invoices:read"; use a key that carries it.')
  }
  const books = await scoped.inject({ url: '/books', headers: { authorization: `Bearer ${LEDGER}` } })
  t.equal(books.statusCode, 200, 'a route asking only for a key serves any scoped key')
})

t.test('a plain client gets every field of every invoice, raw, with affordances', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: AUTH })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), PLAIN_INVOICES)
  t.strictSame(validationErrors(declaredSchema('/invoices', 200, 'application/json'), res.json()), [])
})

t.test('an agent gets displays, no hidden field at any depth, affordances, and Paris time', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: AGENT })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), {
    items: agentInvoices(['31 Jan 2026 14:05 +01:00', '05 Jul 2026 00:30 +02:00']),
    page: 1,
    totalPages: 1,
    hasNext: false
  })
  t.strictSame(validationErrors(declaredSchema('/invoices', 200, AGENT_MEDIA_TYPE), res.json()), [])
})

t.test('the agent schema describes displays and the timestamp example in the zone', async (t) => {
  const envelope = declaredSchema('/invoices', 200, AGENT_MEDIA_TYPE) as { properties: { items: { items: { properties: Record<string, Record<string, unknown>>, required: string[] } } } }
  const item = envelope.properties.items.items
  t.same(item.properties.tags.items, { type: 'string', oneOf: [{ const: 'Awaiting review' }, { const: 'Paid' }, { const: 'Refunded' }] })
  t.notOk('uniqueItems' in item.properties.tags)
  t.same(item.properties.urgency.type, ['string', 'null'])
  t.same(item.properties.issued_at.examples, ['31 Jan 2026 14:05 +01:00'])
  t.ok(item.required.includes('affordances'))
  t.notOk(item.required.includes('etag'))
})

t.test('status filters by the value, not the display: a plain client gets the filtered array, an agent the filtered page', async (t) => {
  const plain = await app.inject({ url: '/invoices?status=PAID', headers: AUTH })
  t.equal(plain.statusCode, 200)
  t.strictSame(plain.json(), [PLAIN_INVOICES[1]])
  t.strictSame(validationErrors(declaredSchema('/invoices', 200, 'application/json'), plain.json()), [])
  const agent = await app.inject({ url: '/invoices?status=PENDING_REVIEW', headers: AGENT })
  t.strictSame(agent.json(), { items: [agentInvoices(['31 Jan 2026 14:05 +01:00', '05 Jul 2026 00:30 +02:00'])[0]], page: 1, totalPages: 1, hasNext: false })
  t.strictSame(validationErrors(declaredSchema('/invoices', 200, AGENT_MEDIA_TYPE), agent.json()), [])
  const none = await app.inject({ url: '/invoices?status=LEGACY_REVIEW', headers: AGENT })
  t.match(none.json(), { items: [], hasNext: false })
  const all = await app.inject({ url: '/invoices', headers: AGENT })
  t.equal(all.json().items.length, 2, 'the unfiltered count is its own, not the last filtered one')
})

t.test('a display, or a value not listed, is a 400 naming status', async (t) => {
  for (const status of ['Paid', 'paid', '']) {
    const res = await app.inject({ url: `/invoices?status=${status}`, headers: AGENT })
    t.equal(res.statusCode, 400, status)
    t.strictSame(res.json().errors, { status: ['Must be equal to one of the allowed values.'] })
  }
})

t.test('number_prefix: the invoices whose number starts with it, letter case counting', async (t) => {
  const res = await app.inject({ url: '/invoices?number_prefix=INV-2', headers: AUTH })
  t.strictSame(res.json().map((invoice: { id: number }) => invoice.id), [8])
  const both = await app.inject({ url: '/invoices?number_prefix=INV-&status=PAID', headers: AGENT })
  t.strictSame(both.json().items.map((invoice: { id: number }) => invoice.id), [8], 'filters combine')
  const lower = await app.inject({ url: '/invoices?number_prefix=inv', headers: AUTH })
  t.strictSame(lower.json(), [])
})

t.test('the filters are published as optional query parameters, the values of status listed with their displays', async (t) => {
  const route = routes.find((r) => r.url === '/invoices')
  const { properties, required } = (route?.schema?.querystring ?? {}) as { properties: Record<string, { enum?: unknown[], description?: string }>, required?: string[] }
  t.strictSame(Object.keys(properties), ['status', 'number_prefix', 'page', 'limit'])
  t.strictSame(properties.status.enum, ['PENDING_REVIEW', 'LEGACY_REVIEW', 'PAID', 'REFUNDED'])
  t.match(properties.status.description, /PENDING_REVIEW \(shown as "Awaiting review"\).*REFUNDED \(shown as "Refunded"\): send the value, not what is shown/)
  t.equal(required, undefined)
})
