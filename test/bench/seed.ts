// Bench databases: the catalogue's schema and demo rows (src/store), and a books table of any
// size, written in one transaction through a prepared statement so a million rows take seconds.
import SQLite from 'better-sqlite3'
import type { Database } from '../../demo/database.js'
import { seedDemo } from '../../demo/catalogue.js'
import { createSchema } from '../../demo/schema.js'
import { openSqlite } from '../../src/store/sqlite.js'

/** A stored book, as the catalogue's table holds it. */
export type BenchBook = Database['books']

/** Creates `path` holding `rows` books (ids 1..rows) and the demo catalogue around them. */
export async function seedBooks (path: string, rows: number): Promise<void> {
  const { db } = openSqlite<Database>(path)
  try {
    await createSchema(db)
  } finally {
    await db.destroy()
  }
  const connection = new SQLite(path)
  try {
    const insert = connection.prepare('insert into books (id, title, status, price, published_on, author_id) values (?, ?, ?, ?, ?, ?)')
    connection.transaction(() => {
      for (let id = 1; id <= rows; id++) {
        const book = benchBook(id)
        insert.run(book.id, book.title, book.status, book.price, book.published_on, book.author_id)
      }
    })()
  } finally {
    connection.close()
  }
  // The demo rows the gateway inserts at every start, so its start writes nothing here.
  const { db: demo } = openSqlite<Database>(path)
  try {
    await seedDemo(demo)
  } finally {
    await demo.destroy()
  }
}

/** Book `id`: deterministic, varied values; some unpublished, some titles needing JSON escapes. */
export function benchBook (id: number): BenchBook {
  const year = 1950 + (id % 70)
  const month = String((id % 12) + 1).padStart(2, '0')
  const day = String((id % 28) + 1).padStart(2, '0')
  return {
    id,
    title: id % 97 === 0 ? `"Quoted" \\ Book ${id}` : `Book number ${id} of the catalogue`,
    status: id % 3 === 0 ? 'draft' : 'published',
    price: `${(id % 50) + 1}.${String(id % 100).padStart(2, '0')}`,
    published_on: id % 5 === 0 ? null : `${year}-${month}-${day}`,
    author_id: 1
  }
}
