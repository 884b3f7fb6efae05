// GET /invoices both ways: displays, nested hidden fields, affordances, timestamps in TIME_ZONE.
import t from 'tap'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import { validationErrors } from '../helpers/ajv.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const { app, declaredSchema } = await buildApp(t, { timeZone: 'Europe/Paris' })

const NOT_PAID = { available: false, code: 'not_paid', reason: 'Only a paid invoice can be refunded.' }

t.test('a plain client gets every field of every invoice, raw, with affordances', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: AUTH })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), [
    {
      id: 7,
      number: 'INV-1',
      etag: 'W/1',
      status: 'PENDING_REVIEW',
      kind: 'PAID',
      tags: ['PENDING_REVIEW', 'PAID'],
      lines: [{ sku: 'S1', internal_cost: '9.99' }],
      customer: { name: 'Ada', secret: 'x' },
      priority: 1,
      urgency: null,
      note: 'hi',
      issued_at: '2026-01-31T13:05:09Z',
      affordances: { refund: NOT_PAID }
    },
    {
      id: 8,
      number: 'INV-2',
      etag: 'W/2',
      status: 'PAID',
      kind: 'PENDING_REVIEW',
      tags: ['LEGACY_REVIEW', 'PENDING_REVIEW'],
      lines: [{ sku: 'S2', internal_cost: '1.00' }, { sku: 'S3', internal_cost: '2.50' }],
      customer: { name: 'Grace', secret: 'y' },
      priority: 2,
      urgency: 2,
      issued_at: '2026-07-04T22:30:00Z',
      affordances: { refund: { available: true } }
    }
  ])
  t.strictSame(validationErrors(declaredSchema('/invoices', 200, 'application/json'), res.json()), [])
})

t.test('an agent gets displays, no hidden field at any depth, affordances, and Paris time', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: AGENT })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), {
    items: [
      {
        id: 7,
        number: 'INV-1',
        status: 'Awaiting review',
        kind: 'PAID',
        tags: ['Awaiting review', 'Paid'],
        lines: [{ sku: 'S1' }],
        customer: { name: 'Ada' },
        priority: 'Low',
        urgency: null,
        note: 'hi',
        issued_at: '31 Jan 2026 14:05 +01:00',
        affordances: { refund: NOT_PAID }
      },
      {
        id: 8,
        number: 'INV-2',
        status: 'Paid',
        kind: 'PENDING_REVIEW',
        tags: ['Awaiting review', 'Awaiting review'],
        lines: [{ sku: 'S2' }, { sku: 'S3' }],
        customer: { name: 'Grace' },
        priority: 'High',
        urgency: 'High',
        issued_at: '05 Jul 2026 00:30 +02:00',
        affordances: { refund: { available: true } }
      }
    ],
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
