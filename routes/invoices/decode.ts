// An invoice's stored row back to the record's values: the JSON columns parsed, an absent note left absent.
import type { RowOf } from '../../src/index.js'
import type { InvoiceTable } from '../../demo/database.js'
import type { Invoice } from './invoice.js'

/** Stored JSON columns back to values; an absent note stays absent, as the record allows. */
export function decode ({ tags, lines, customer, note, ...row }: InvoiceTable): RowOf<typeof Invoice> {
  return {
    ...row,
    tags: JSON.parse(tags),
    lines: JSON.parse(lines),
    customer: JSON.parse(customer),
    ...(note === null ? {} : { note })
  }
}
