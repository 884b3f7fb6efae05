// Invoices: choices with displays, hidden nested fields, and a refund affordance per row.
import type { FastifyInstance } from 'fastify'
import { kyselySource, type RowOf, scope } from '../../src/index.js'
import type { InvoiceTable } from '../../demo/database.js'
import { Invoice } from './invoice.js'

export default async function invoices (app: FastifyInstance): Promise<void> {
  app.mount({
    kind: 'list',
    name: 'listInvoices',
    url: '/invoices',
    summary: 'List the invoices',
    description: 'Every invoice, in id order, with whether it can be refunded; by status (its value, such as PAID) and by the start of its number.',
    tags: ['invoices'],
    declaration: Invoice,
    source: kyselySource(app.store, () => app.store.db.selectFrom('invoices').selectAll().orderBy('id'), { decode }),
    // A key configured without scopes (the generated one too) carries every scope, this one included.
    permissions: [scope('invoices:read')],
    paging: { style: 'page', ceiling: 50 },
    // `status=PAID` (the value, not the display) and `number_prefix=INV-`.
    filters: { status: 'equals', number: 'prefix' }
  })
}

/** Stored JSON columns back to values; an absent note stays absent, as the record allows. */
function decode ({ tags, lines, customer, note, ...row }: InvoiceTable): RowOf<typeof Invoice> {
  return {
    ...row,
    tags: JSON.parse(tags),
    lines: JSON.parse(lines),
    customer: JSON.parse(customer),
    ...(note === null ? {} : { note })
  }
}
