// The demo catalogue `npm start` serves (docs/http.md lists it); inserted idempotently, so a
// restart never duplicates nor overwrites a row.
import type { Insertable } from 'kysely'
import type { Database, Db } from './database.js'
import { coverImage } from './cover.js'
import { createSchema } from './schema.js'

export const DEMO_AUTHORS: Array<Insertable<Database['authors']>> = [{ id: 1, name: 'Ursula K. Le Guin' }]

export const DEMO_BOOKS: Array<Insertable<Database['books']>> = [
  { id: 1, title: 'The Dispossessed', status: 'published', price: '9.99', published_on: '1974-05-01', author_id: 1 },
  { id: 2, title: 'The Lathe of Heaven', status: 'draft', price: '9.99', published_on: null, author_id: 1 },
  { id: 3, title: 'A Wizard of Earthsea', status: 'published', price: '9.99', published_on: '1968-11-01', author_id: 1 }
]

export const DEMO_INVOICES: Array<Insertable<Database['invoices']>> = [
  {
    id: 7,
    number: 'INV-1',
    etag: 'W/1',
    status: 'PENDING_REVIEW',
    kind: 'PAID',
    tags: JSON.stringify(['PENDING_REVIEW', 'PAID']),
    lines: JSON.stringify([{ sku: 'S1', internal_cost: '9.99' }]),
    customer: JSON.stringify({ name: 'Ada', secret: 'x' }),
    priority: 1,
    urgency: null,
    note: 'hi',
    issued_at: '2026-01-31T13:05:09Z'
  },
  {
    id: 8,
    number: 'INV-2',
    etag: 'W/2',
    status: 'PAID',
    kind: 'PENDING_REVIEW',
    tags: JSON.stringify(['LEGACY_REVIEW', 'PENDING_REVIEW']),
    lines: JSON.stringify([{ sku: 'S2', internal_cost: '1.00' }, { sku: 'S3', internal_cost: '2.50' }]),
    customer: JSON.stringify({ name: 'Grace', secret: 'y' }),
    priority: 2,
    urgency: 2,
    note: null,
    issued_at: '2026-07-04T22:30:00Z'
  }
]

export const LEDGER_SIZE = 1240

/** Ledger entry `id` (1-based): deterministic values, so every store serves the same ledger. */
export function ledgerEntry (id: number): Insertable<Database['ledger']> {
  const cents = ((id * 7919) % 100000) + 100
  const posted = new Date(Date.UTC(2026, 0, 1) + (id - 1) * 6 * 3600 * 1000)
  return {
    id,
    memo: `Entry ${id}`,
    amount: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    posted_at: posted.toISOString().replace('.000Z', 'Z'),
    account_id: (id % 12) + 1
  }
}

/** The catalogue's tables and demo rows; safe on every start. */
export async function setUpDemo (db: Db): Promise<void> {
  await createSchema(db)
  await seedDemo(db)
}

export async function seedDemo (db: Db): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('authors').values(DEMO_AUTHORS).onConflict((c) => c.doNothing()).execute()
    await tx.insertInto('books').values(DEMO_BOOKS).onConflict((c) => c.doNothing()).execute()
    // Drawn from each book's id: every store holds the same covers.
    const covers = DEMO_BOOKS.map((book) => ({ book_id: book.id as number, image: coverImage(book.id as number) }))
    await tx.insertInto('book_covers').values(covers).onConflict((c) => c.doNothing()).execute()
    await tx.insertInto('invoices').values(DEMO_INVOICES).onConflict((c) => c.doNothing()).execute()
    const ledger = Array.from({ length: LEDGER_SIZE }, (_, i) => ledgerEntry(i + 1))
    for (let start = 0; start < ledger.length; start += 200) {
      await tx.insertInto('ledger').values(ledger.slice(start, start + 200)).onConflict((c) => c.doNothing()).execute()
    }
  })
}
