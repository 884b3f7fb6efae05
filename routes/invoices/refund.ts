// The refund an invoice affords: in one transaction, the invoice becomes REFUNDED (its version one
// more) and the ledger gains the entry that pays the amount back. The affordance is checked again
// on the invoice as the transaction reads it, so two refunds of one invoice at once refund it once;
// the other is a 409.
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { scope, storeAction, type ActionInput } from '../../src/index.js'
import type { InvoiceTable } from '../../demo/database.js'
import { decode } from './decode.js'
import { Invoice } from './invoice.js'

/** The ledger's account refunds are paid from. */
export const REFUNDS_ACCOUNT = 13

/** A positive amount of euros, to the cent: `12.50`. */
const POSITIVE_AMOUNT = '^(?:[1-9][0-9]{0,8}(?:\\.[0-9]{1,2})?|0\\.(?:[1-9][0-9]?|0[1-9]))$'

type RefundInput = ActionInput<{ id: number }, { amount: string, reason: string }>

export default async function refund (app: FastifyInstance): Promise<void> {
  app.mount({
    kind: 'action',
    name: 'refundInvoice',
    url: '/invoices/:id/refund',
    summary: 'Refund an invoice',
    description: 'Refunds a paid invoice: it becomes REFUNDED and the ledger records the amount paid back, together or not at all. Answers the invoice as it is then.',
    tags: ['invoices'],
    params: Type.Object({ id: Type.Integer({ description: 'The invoice\'s identifier.' }) }),
    body: Type.Object({
      amount: Type.String({ pattern: POSITIVE_AMOUNT, description: 'The amount paid back, in euros, to the cent (`12.50`): more than 0, less than a billion.' }),
      reason: Type.String({ minLength: 1, maxLength: 200, description: 'Why it is refunded: recorded in the ledger entry\'s memo.' })
    }),
    permissions: [scope('invoices:refund')],
    result: Invoice,
    affords: { declaration: Invoice, affordance: 'refund' },
    target: storeAction(app.store, {
      subject: async (tx, { params }: RefundInput) => await tx.selectFrom('invoices').selectAll().where('id', '=', params.id).executeTakeFirst(),
      act: async (tx, { params, body }: RefundInput, invoice: InvoiceTable) => {
        await tx.updateTable('invoices').set({ status: 'REFUNDED', etag: `W/${Number(invoice.etag.replace(/^W\//, '')) + 1}` }).where('id', '=', params.id).execute()
        const last = await tx.selectFrom('ledger').select((eb) => eb.fn.coalesce(eb.fn.max('id'), eb.lit(0)).as('id')).executeTakeFirstOrThrow()
        await tx.insertInto('ledger').values({
          id: Number(last.id) + 1,
          memo: `Refund of ${invoice.number}: ${body.reason}`,
          amount: `-${body.amount}`,
          posted_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          account_id: REFUNDS_ACCOUNT
        }).execute()
        const refunded = await tx.selectFrom('invoices').selectAll().where('id', '=', params.id).executeTakeFirstOrThrow()
        return decode(refunded)
      }
    })
  })
}
