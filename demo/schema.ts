// Creates the demo catalogue's tables when they are missing; safe to run at every start. The
// tables are declared as data, so every dialect gets the same columns from one list.
import { PostgresAdapter, type ColumnDefinitionBuilder } from 'kysely'
import type { Database, Db } from './database.js'

type Column = readonly [name: string, type: 'integer' | 'text' | 'bytes', constraint?: 'primary key' | 'not null']

const TABLES: Readonly<Record<keyof Database, readonly Column[]>> = {
  authors: [['id', 'integer', 'primary key'], ['name', 'text', 'not null']],
  books: [
    ['id', 'integer', 'primary key'], ['title', 'text', 'not null'], ['status', 'text', 'not null'], ['price', 'text', 'not null'],
    ['published_on', 'text'], ['author_id', 'integer', 'not null']
  ],
  invoices: [
    ['id', 'integer', 'primary key'], ['number', 'text', 'not null'], ['etag', 'text', 'not null'], ['status', 'text', 'not null'],
    ['kind', 'text', 'not null'], ['tags', 'text', 'not null'], ['lines', 'text', 'not null'], ['customer', 'text', 'not null'],
    ['priority', 'integer', 'not null'], ['urgency', 'integer'], ['note', 'text'], ['issued_at', 'text', 'not null']
  ],
  book_covers: [['book_id', 'integer', 'primary key'], ['image', 'bytes', 'not null']],
  ledger: [
    ['id', 'integer', 'primary key'], ['memo', 'text', 'not null'], ['amount', 'text', 'not null'], ['posted_at', 'text', 'not null'],
    ['account_id', 'integer', 'not null']
  ]
}

export async function createSchema (db: Db): Promise<void> {
  // Bytes are a `bytea` in PostgreSQL, a `blob` in SQLite.
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob'
  for (const [table, columns] of Object.entries(TABLES)) {
    let create = db.schema.createTable(table).ifNotExists()
    for (const [name, type, constraint] of columns) create = create.addColumn(name, type === 'bytes' ? bytes : type, (column) => constrained(column, constraint))
    await create.execute()
  }
}

function constrained (column: ColumnDefinitionBuilder, constraint: Column[2]): ColumnDefinitionBuilder {
  if (constraint === 'primary key') return column.primaryKey()
  return constraint === 'not null' ? column.notNull() : column
}
