// What an engineer would write by hand for the same agent payloads: one function per record, the
// same luxon rendering a careful hand would use, nothing generic. The references are measured
// against these, so they must serve byte for byte what the gateway serves.
import { DateTime } from 'luxon'
import type { BenchBook } from './seed.js'

export interface BookForAgents {
  id: number
  title: string
  status: string
  price: string
  published_on: string | null
}

const BOOK_STATUSES: Readonly<Record<string, string>> = { draft: 'Draft', published: 'Published' }

export function handBook (row: BenchBook): BookForAgents {
  return {
    id: row.id,
    title: row.title,
    status: BOOK_STATUSES[row.status] ?? row.status,
    price: `EUR ${row.price}`,
    published_on: row.published_on === null ? null : DateTime.fromISO(row.published_on, { zone: 'UTC', locale: 'en-US' }).toFormat('dd LLLL yyyy')
  }
}

/** The same, the date served as stored: what is left is the projection's own work. */
export function handBookUntimed (row: BenchBook): BookForAgents {
  return { id: row.id, title: row.title, status: BOOK_STATUSES[row.status] ?? row.status, price: `EUR ${row.price}`, published_on: row.published_on }
}

/** A presented invoice, as the invoices route decodes it and the declaration presents it. */
export interface PresentedInvoice {
  id: number
  number: string
  etag: string
  status: string
  kind: string
  priority: number
  urgency: number | null
  issued_at: string
  tags: string[]
  lines: Array<{ sku: string, internal_cost: string }>
  customer: { name: string, secret: string }
  note?: string
  affordances: { refund: { available: true } | { available: false, code: string, reason: string } }
}

const INVOICE_STATUSES: Readonly<Record<string, string>> = { PENDING_REVIEW: 'Awaiting review', LEGACY_REVIEW: 'Awaiting review', PAID: 'Paid' }
const PRIORITIES: Readonly<Record<number, string>> = { 1: 'Low', 2: 'High' }

export function handInvoice (row: PresentedInvoice): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    number: row.number,
    status: INVOICE_STATUSES[row.status] ?? row.status,
    kind: row.kind,
    priority: PRIORITIES[row.priority] ?? row.priority,
    urgency: row.urgency === null ? null : PRIORITIES[row.urgency] ?? row.urgency,
    issued_at: DateTime.fromISO(row.issued_at, { zone: 'UTC', locale: 'en-US' }).toFormat('dd LLL yyyy HH:mm ZZ'),
    tags: row.tags.map((tag) => INVOICE_STATUSES[tag] ?? tag),
    lines: row.lines.map((line) => ({ sku: line.sku })),
    customer: { name: row.customer.name }
  }
  if (row.note !== undefined) out.note = row.note
  out.affordances = row.affordances
  return out
}

/** The page style's window, written out: limit clamped, pages counted, page clamped. */
export function handWindow (page: number | undefined, limit: number | undefined, total: number, maxPageSize: number): { page: number, totalPages: number, limit: number, offset: number } {
  const size = Math.min(Math.max(limit ?? maxPageSize, 1), maxPageSize)
  const totalPages = Math.max(1, Math.ceil(total / size))
  const served = Math.min(Math.max(page ?? 1, 1), totalPages)
  return { page: served, totalPages, limit: size, offset: (served - 1) * size }
}
