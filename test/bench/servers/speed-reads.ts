// What the route hand-written for speed reads, from either store: prepared statements on the
// SQLite file (better-sqlite3, synchronous), or named prepared statements on PostgreSQL through a
// pg pool of its own (the server prepares each once per connection). No query builder either way:
// the same SQL every time.
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { isPostgresUrl, postgresSettings } from '../../../src/store/postgres-url.js'
import type { BenchBook } from '../seed.js'

/** A ledger entry as its agent page reads it, and as its plain list does (`account_id` too). */
export interface LedgerRow { id: number, memo: string, amount: string, posted_at: string, account_id?: number }

/** The ledger's range filters as sent: an instant from which, and one up to which. */
export interface LedgerBounds { min?: string, max?: string }

/** Each read the speed route makes; SQLite's answer at once, PostgreSQL's a promise. */
export interface SpeedReads {
  countBooks: () => number | Promise<number>
  books: (limit: number, offset: number) => BenchBook[] | Promise<BenchBook[]>
  countLedger: (bounds: LedgerBounds) => number | Promise<number>
  ledger: (bounds: LedgerBounds, limit: number, offset: number) => LedgerRow[] | Promise<LedgerRow[]>
  allLedger: (bounds: LedgerBounds) => LedgerRow[] | Promise<LedgerRow[]>
  allBooks: () => BenchBook[] | Promise<BenchBook[]>
  close: () => Promise<void>
}

/** The reads of the store `database` names: a SQLite file's path, or a postgres:// URL. */
export function speedReads (database: string): SpeedReads {
  return isPostgresUrl(database) ? postgresReads(database) : sqliteReads(database)
}

/** Which statement of four the bounds select: unfiltered, from an instant on, up to one, and between two. */
function rangeOf ({ min, max }: LedgerBounds): number {
  return (min === undefined ? 0 : 1) + (max === undefined ? 0 : 2)
}

/** How many bounds each range binds. */
const BOUNDS = [0, 1, 1, 2]

/**
 * The ledger's WHERE clause of each range, its bounds written as the store's parameters are: the
 * lower bound `min`, the upper one `max` alone and `maxAfterMin` after a lower one. Stored UTC text
 * compares as time.
 */
function ranges (min: string, max: string, maxAfterMin: string = max): string[] {
  return ['', ` where posted_at >= ${min}`, ` where posted_at <= ${max}`, ` where posted_at >= ${min} and posted_at <= ${maxAfterMin}`]
}

function sqliteReads (path: string): SpeedReads {
  const connection = new SQLite(path, { readonly: true })
  // Bound by name: the bounds as sent are the statement's parameters.
  const where = ranges('@min', '@max')
  const countBooks = connection.prepare('select count(*) as count from books').pluck()
  const books = connection.prepare('select id, title, status, price, published_on from books order by id limit ? offset ?')
  const countLedger = where.map((clause) => connection.prepare(`select count(*) as count from ledger${clause}`).pluck())
  const ledger = where.map((clause) => connection.prepare(`select id, memo, amount, posted_at from ledger${clause} order by id limit @limit offset @offset`))
  const allLedger = where.map((clause) => connection.prepare(`select id, memo, amount, posted_at, account_id from ledger${clause} order by id`))
  const allBooks = connection.prepare('select id, title, status, price, published_on, author_id from books order by id')
  return {
    countBooks: () => countBooks.get() as number,
    books: (limit, offset) => books.all(limit, offset) as BenchBook[],
    countLedger: (bounds) => countLedger[rangeOf(bounds)].get(bounds) as number,
    ledger: (bounds, limit, offset) => ledger[rangeOf(bounds)].all({ ...bounds, limit, offset }) as LedgerRow[],
    allLedger: (bounds) => allLedger[rangeOf(bounds)].all(bounds) as LedgerRow[],
    allBooks: () => allBooks.all() as BenchBook[],
    close: async () => { connection.close() }
  }
}

/** The bounds sent, in the order the range's clause names them. */
function positional ({ min, max }: LedgerBounds): string[] {
  return [...(min === undefined ? [] : [min]), ...(max === undefined ? [] : [max])]
}

function postgresReads (url: string): SpeedReads {
  const { connectionString, options } = postgresSettings(url)
  const pool = new pg.Pool({ connectionString, options, allowExitOnIdle: true })
  const where = ranges('$1', '$1', '$2')
  // A name per statement: pg prepares it on each connection the first time, then only binds it.
  const statement = (name: string, text: string) => ({ name, text })
  const countLedger = where.map((clause, range) => statement(`count-ledger-${range}`, `select count(*) as count from ledger${clause}`))
  // The page's limit and offset follow the range's bounds.
  const ledger = where.map((clause, range) => statement(`ledger-${range}`, `select id, memo, amount, posted_at from ledger${clause} order by id limit $${BOUNDS[range] + 1} offset $${BOUNDS[range] + 2}`))
  const allLedger = where.map((clause, range) => statement(`all-ledger-${range}`, `select id, memo, amount, posted_at, account_id from ledger${clause} order by id`))
  const rows = async <Row>(query: { name: string, text: string }, values: unknown[] = []): Promise<Row[]> => (await pool.query({ ...query, values })).rows as Row[]
  // count(*) is a bigint, which pg reads as text.
  const count = async (query: { name: string, text: string }, values: unknown[]): Promise<number> => Number((await rows<{ count: string }>(query, values))[0].count)
  return {
    countBooks: async () => await count(statement('count-books', 'select count(*) as count from books'), []),
    books: async (limit, offset) => await rows(statement('books', 'select id, title, status, price, published_on from books order by id limit $1 offset $2'), [limit, offset]),
    countLedger: async (bounds) => await count(countLedger[rangeOf(bounds)], positional(bounds)),
    ledger: async (bounds, limit, offset) => await rows(ledger[rangeOf(bounds)], [...positional(bounds), limit, offset]),
    allLedger: async (bounds) => await rows(allLedger[rangeOf(bounds)], positional(bounds)),
    allBooks: async () => await rows(statement('all-books', 'select id, title, status, price, published_on, author_id from books order by id')),
    close: async () => { await pool.end() }
  }
}
