// The invoice record: choices with shared displays, nested records with hidden fields, a
// handle that keeps its stored value, and a per-row affordance.
import Type from 'typebox'
import { choices, declareRecord, handle, hidden, label, Nullable, timestamp } from '../../src/index.js'

const STATUSES = [
  ['PENDING_REVIEW', 'Awaiting review'],
  ['LEGACY_REVIEW', 'Awaiting review'],
  ['PAID', 'Paid'],
  ['REFUNDED', 'Refunded']
] as const

const PRIORITIES = [[1, 'Low'], [2, 'High']] as const

export const Invoice = declareRecord('Invoice', Type.Object({
  id: handle(Type.Integer({ description: 'The invoice\'s identifier.' })),
  number: label(Type.String(), 'The invoice number.'),
  etag: hidden(Type.String({ description: 'The version the store holds.' })),
  status: choices(STATUSES, { description: 'Where the invoice stands.' }),
  kind: handle(choices(STATUSES, { description: 'The kind of invoice.' }), 'Pass to refund.'),
  tags: Type.Array(choices(STATUSES), { uniqueItems: true, description: 'Statuses the invoice has been through.' }),
  lines: Type.Array(Type.Object({
    sku: Type.String({ description: 'The stock-keeping unit.' }),
    internal_cost: hidden(Type.String({ description: 'What the line cost us.' }))
  }), { description: 'The invoiced lines.' }),
  customer: Type.Object({
    name: label(Type.String({ description: 'The customer\'s name.' })),
    secret: hidden(Type.String({ description: 'An internal reference.' }))
  }, { description: 'Who is invoiced.' }),
  priority: choices(PRIORITIES, { description: 'How urgent handling is.' }),
  urgency: choices(PRIORITIES, { nullable: true, description: 'How urgent payment is, if set.' }),
  note: Type.Optional(Nullable(Type.String({ description: 'A free note.' }))),
  issued_at: timestamp(Type.String({ format: 'date-time', description: 'When the invoice was issued.' }))
}, { description: 'An invoice.' }), {
  refund: {
    description: 'Refund the invoice.',
    when: (invoice) => invoice.status === 'PAID' || { code: 'not_paid', reason: 'Only a paid invoice can be refunded.' },
    action: 'refundInvoice'
  }
})
