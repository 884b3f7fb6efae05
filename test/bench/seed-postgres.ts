// Bench tables on PostgreSQL: the catalogue's schema and demo rows in a schema of their own, and a
// books table of any size with the same rows as SQLite's (benchBook), sent in batches of 10,000
// as arrays (one statement each), then vacuumed so COUNT may use an index-only scan.
import { sql } from 'kysely'
import { seedDemo } from '../../demo/catalogue.js'
import { connectPostgres, setUpPostgres } from '../../src/store/postgres.js'
import { createSchema } from '../../demo/schema.js'
import { benchBook } from './seed.js'

const BATCH = 10_000

/** Creates the schema `url` names holding `rows` books (ids 1..rows) and the demo catalogue around them. */
export async function seedPostgresBooks (url: string, rows: number): Promise<void> {
  const store = connectPostgres(url)
  try {
    await setUpPostgres(store, async (db) => {
      await createSchema(db)
      for (let start = 1; start <= rows; start += BATCH) {
        const books = Array.from({ length: Math.min(BATCH, rows - start + 1) }, (_, i) => benchBook(start + i))
        const column = <K extends keyof typeof books[number]>(key: K) => books.map((book) => book[key])
        await sql`insert into books (id, title, status, price, published_on, author_id)
          select * from unnest(${column('id')}::integer[], ${column('title')}::text[], ${column('status')}::text[],
            ${column('price')}::text[], ${column('published_on')}::text[], ${column('author_id')}::integer[])`.execute(db)
      }
      // The demo rows the gateway inserts at every start, so its start writes nothing here.
      await seedDemo(db)
    })
    await sql`vacuum (analyze) books`.execute(store.db)
  } finally {
    await store.db.destroy()
  }
}
