// The invoice record of the HTTP contract: choices sharing a display, a handle over choices, nested
// records with hidden fields, a nullable choice, an absent field, a timestamp and an affordance.
import t from 'tap'
import { Invoice } from '../../../routes/invoices/invoice.js'
import { projectSchema, buildProjection, projectPayload } from '../../../src/projection/index.js'
import { validationErrors } from '../../helpers/ajv.js'
import { deepFreeze } from '../../helpers/freeze.js'
import { agentInvoices, INVOICE_ROWS, PLAIN_INVOICES } from '../../fixtures/invoices.js'

const HANDLE_DESCRIPTION = 'An identifier to pass to other tools. Never read it out.'

type InvoiceRow = Parameters<typeof Invoice.present>[0]

const rows = deepFreeze<InvoiceRow[]>(structuredClone(INVOICE_ROWS) as unknown as InvoiceRow[])

const plainSchema = deepFreeze(Invoice.schema)
const presented = deepFreeze(rows.map(Invoice.present))
const projection = buildProjection(plainSchema, { name: 'Route \'GET /invoices\'' })

const ACTION = { type: 'string', description: 'The action that acts on the record (its operationId over HTTP, its tool\'s name over MCP), when one does: call it while available.' }

const AFFORDANCES_SCHEMA = {
  type: 'object',
  description: 'What can be done with this record.',
  required: ['refund'],
  properties: {
    refund: {
      description: 'Refund the invoice. Acted on by refundInvoice.',
      anyOf: [
        { type: 'object', required: ['available'], properties: { available: { type: 'boolean', const: true }, action: ACTION }, additionalProperties: false },
        {
          type: 'object',
          required: ['available', 'code', 'reason'],
          properties: {
            available: { type: 'boolean', const: false },
            code: { type: 'string', description: 'A stable machine-readable reason.' },
            reason: { type: 'string', description: 'Why the action is unavailable, for a human.' },
            action: ACTION
          },
          additionalProperties: false
        }
      ]
    }
  }
}

const STATUS_ONE_OF = [
  { const: 'PENDING_REVIEW', title: 'Awaiting review' },
  { const: 'LEGACY_REVIEW', title: 'Awaiting review' },
  { const: 'PAID', title: 'Paid' },
  { const: 'REFUNDED', title: 'Refunded' }
]

t.test('the plain rows are every field, raw, with the affordances answered per row', async (t) => {
  t.strictSame(presented, PLAIN_INVOICES)
})

t.test('the plain item schema is the declaration, pure JSON Schema', async (t) => {
  t.strictSame(JSON.parse(JSON.stringify(plainSchema)), {
    type: 'object',
    description: 'An invoice.',
    required: ['id', 'number', 'etag', 'status', 'kind', 'tags', 'lines', 'customer', 'priority', 'urgency', 'issued_at', 'affordances'],
    properties: {
      id: { type: 'integer', description: 'The invoice\'s identifier.' },
      number: { type: 'string' },
      etag: { type: 'string', description: 'The version the store holds.' },
      status: { type: 'string', oneOf: STATUS_ONE_OF, description: 'Where the invoice stands.' },
      kind: { type: 'string', oneOf: STATUS_ONE_OF, description: 'The kind of invoice.' },
      tags: { type: 'array', items: { type: 'string', oneOf: STATUS_ONE_OF }, uniqueItems: true, description: 'Statuses the invoice has been through.' },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          required: ['sku', 'internal_cost'],
          properties: { sku: { type: 'string', description: 'The stock-keeping unit.' }, internal_cost: { type: 'string', description: 'What the line cost us.' } }
        },
        description: 'The invoiced lines.'
      },
      customer: {
        type: 'object',
        required: ['name', 'secret'],
        properties: { name: { type: 'string', description: 'The customer\'s name.' }, secret: { type: 'string', description: 'An internal reference.' } },
        description: 'Who is invoiced.'
      },
      priority: { type: 'integer', oneOf: [{ const: 1, title: 'Low' }, { const: 2, title: 'High' }], description: 'How urgent handling is.' },
      urgency: { type: ['integer', 'null'], oneOf: [{ const: 1, title: 'Low' }, { const: 2, title: 'High' }, { const: null }], description: 'How urgent payment is, if set.' },
      note: { type: ['string', 'null'], description: 'A free note.' },
      issued_at: { type: 'string', format: 'date-time', description: 'When the invoice was issued.' },
      affordances: AFFORDANCES_SCHEMA
    }
  })
})

t.test('the plain rows validate against the plain schema', async (t) => {
  t.strictSame(validationErrors({ type: 'array', items: plainSchema }, presented), [])
})

t.test('the projected rows', async (t) => {
  t.strictSame(projectPayload(presented, projection), agentInvoices(['31 Jan 2026 13:05 +00:00', '04 Jul 2026 22:30 +00:00']))
})

t.test('the agent item schema', async (t) => {
  t.strictSame(JSON.parse(JSON.stringify(projectSchema(plainSchema, projection, { handleDescription: HANDLE_DESCRIPTION }))), {
    type: 'object',
    description: 'An invoice.',
    required: ['id', 'number', 'status', 'kind', 'tags', 'lines', 'customer', 'priority', 'urgency', 'issued_at', 'affordances'],
    properties: {
      id: { type: 'integer', description: HANDLE_DESCRIPTION },
      number: { type: 'string', description: 'The invoice number.' },
      status: { type: 'string', oneOf: [{ const: 'Awaiting review' }, { const: 'Paid' }, { const: 'Refunded' }], description: 'Where the invoice stands.' },
      kind: { type: 'string', oneOf: STATUS_ONE_OF, description: 'Pass to refund.' },
      tags: { type: 'array', items: { type: 'string', oneOf: [{ const: 'Awaiting review' }, { const: 'Paid' }, { const: 'Refunded' }] }, description: 'Statuses the invoice has been through.' },
      lines: {
        type: 'array',
        items: { type: 'object', required: ['sku'], properties: { sku: { type: 'string', description: 'The stock-keeping unit.' } } },
        description: 'The invoiced lines.'
      },
      customer: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', description: 'The customer\'s name.' } },
        description: 'Who is invoiced.'
      },
      priority: { type: 'string', oneOf: [{ const: 'Low' }, { const: 'High' }], description: 'How urgent handling is.' },
      urgency: { type: ['string', 'null'], oneOf: [{ const: 'Low' }, { const: 'High' }, { const: null }], description: 'How urgent payment is, if set.' },
      note: { type: ['string', 'null'], description: 'A free note.' },
      issued_at: { type: 'string', examples: ['31 Jan 2026 14:05 +00:00'], description: 'When the invoice was issued.' },
      affordances: AFFORDANCES_SCHEMA
    }
  })
})

t.test('the projected rows validate against the agent schema', async (t) => {
  const agent = projectSchema(plainSchema, projection, { handleDescription: HANDLE_DESCRIPTION })
  t.strictSame(validationErrors({ type: 'array', items: agent }, projectPayload(presented, projection)), [])
})

t.test('the plain schema refuses the projected rows, so the two validations say something', async (t) => {
  const errors = validationErrors({ type: 'array', items: plainSchema }, projectPayload(presented, projection))
  t.ok(errors.some((error) => error.instancePath === '/0/status'))
  t.ok(errors.some((error) => error.instancePath === '/1' && error.params.missingProperty === 'etag'))
})

t.test('the affordances pass through the projection whole', async (t) => {
  const projected = projectPayload(presented, projection) as Array<Record<string, unknown>>
  t.equal(projected[0].affordances, presented[0].affordances)
  t.equal(projected[1].affordances, presented[1].affordances)
  t.equal(projectSchema(plainSchema, projection).properties?.affordances, plainSchema.properties.affordances)
})

t.test('in another zone the timestamps and their example follow it', async (t) => {
  const paris = buildProjection(plainSchema, { name: 'Route \'GET /invoices\'', timeZone: 'Europe/Paris' })
  t.strictSame((projectPayload(presented, paris) as Array<Record<string, unknown>>).map((row) => row.issued_at), ['31 Jan 2026 14:05 +01:00', '05 Jul 2026 00:30 +02:00'])
  t.strictSame(projectSchema(plainSchema, paris).properties?.issued_at.examples, ['31 Jan 2026 14:05 +01:00'])
})
