// Invoices: choices with displays, hidden nested fields, and a refund affordance per row.
import type { FastifyInstance } from 'fastify'
import { kyselySource, scope } from '../../src/index.js'
import { decode } from './decode.js'
import { Invoice } from './invoice.js'
import refund from './refund.js'

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
  // What each invoice's refund affordance names: the action that refunds it.
  await refund(app)
}
