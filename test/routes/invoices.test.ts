// GET /invoices both ways: displays, nested hidden fields, affordances, timestamps in TIME_ZONE.
import t from 'tap'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import { validationErrors } from '../helpers/ajv.js'
import { agentInvoices, PLAIN_INVOICES } from '../fixtures/invoices.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const { app, declaredSchema } = await buildApp(t, { timeZone: 'Europe/Paris' })

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
  t.same(item.properties.tags.items, { type: 'string', oneOf: [{ const: 'Awaiting review' }, { const: 'Paid' }] })
  t.notOk('uniqueItems' in item.properties.tags)
  t.same(item.properties.urgency.type, ['string', 'null'])
  t.same(item.properties.issued_at.examples, ['31 Jan 2026 14:05 +01:00'])
  t.ok(item.required.includes('affordances'))
  t.notOk(item.required.includes('etag'))
})
