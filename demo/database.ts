// The stored shape of the demo catalogue, as kysely sees it. Values are kept as the gateway
// presents them: decimals and dates as text, nested records as JSON text.
import type { Kysely } from 'kysely'

export interface AuthorTable { id: number, name: string }

export interface BookTable {
  id: number
  title: string
  status: 'draft' | 'published'
  price: string
  published_on: string | null
  author_id: number
}

/** A book's cover: a PNG image, as bytes (`blob`, `bytea`). */
export interface BookCoverTable {
  book_id: number
  image: Uint8Array
}

/** An invoice's status, as stored. */
export type InvoiceStatus = 'PENDING_REVIEW' | 'LEGACY_REVIEW' | 'PAID' | 'REFUNDED'

export interface InvoiceTable {
  id: number
  number: string
  etag: string
  status: InvoiceStatus
  kind: InvoiceStatus
  /** JSON text: an array of statuses. */
  tags: string
  /** JSON text: an array of `{ sku, internal_cost }`. */
  lines: string
  /** JSON text: `{ name, secret }`. */
  customer: string
  priority: 1 | 2
  urgency: 1 | 2 | null
  note: string | null
  issued_at: string
}

export interface LedgerTable {
  id: number
  memo: string
  amount: string
  posted_at: string
  account_id: number
}

export interface Database {
  authors: AuthorTable
  books: BookTable
  book_covers: BookCoverTable
  invoices: InvoiceTable
  ledger: LedgerTable
}

export type Db = Kysely<Database>

// `app.store` reads these tables in the demo's resources: they are its GatewayDatabase.
declare module '../src/index.js' {
  interface GatewayDatabase extends Database {}
}
