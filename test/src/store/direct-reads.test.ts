// A select on SQLite is read at once on its connection, without kysely's driver, unless kysely holds
// the connection: then a transaction may be open on it, and the read waits for it through kysely.
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { sql, type Kysely, type LogEvent } from 'kysely'
import t, { type Test } from 'tap'
import { directSqlite, type Read } from '../../../src/store/direct-reads.js'
import { openSqlite } from '../../../src/store/sqlite.js'

interface Tables { numbers: { n: number } }

/** A connection's table of two numbers, its kysely instance and direct read, and what went through kysely and what was told of. */
function numbers (t: Test): { db: Kysely<Tables>, read: Read, throughKysely: string[], told: string[] } {
  const connection = new SQLite(':memory:')
  connection.exec('create table numbers (n integer primary key)')
  connection.exec('insert into numbers (n) values (1), (2)')
  const throughKysely: string[] = []
  const told: string[] = []
  const { db, read } = directSqlite<Tables>({ prepare: (text) => connection.prepare(text), close: () => { connection.close() } }, (event: LogEvent) => { throughKysely.push(event.query.sql) }, (text) => { told.push(text) })
  t.teardown(async () => { await db.destroy() })
  return { db, read, throughKysely, told }
}

const COUNT = sql<{ count: number }>`select count(*) as count from numbers`

t.test('a select is read on the connection at once, told of, and not run through kysely', async (t) => {
  const { db, read, throughKysely, told } = numbers(t)
  const query = COUNT.compile(db)
  t.strictSame(await read(query), [{ count: 2 }])
  t.strictSame(throughKysely, [], 'kysely ran nothing')
  t.strictSame(told, [query.sql], 'the query is told of, as kysely\'s are')
})

/**
 * A transaction that inserts 3 and holds the connection until `rollBack` is called, then fails, so
 * that nothing it wrote is committed; `inserted` resolves once it has written.
 */
function heldTransaction (db: Kysely<Tables>): { inserted: Promise<void>, rollBack: () => void, done: Promise<void> } {
  let wrote!: () => void
  let rollBack!: () => void
  const inserted = new Promise<void>((resolve) => { wrote = resolve })
  const released = new Promise<void>((resolve) => { rollBack = resolve })
  const done = db.transaction().execute(async (trx) => {
    await trx.insertInto('numbers').values({ n: 3 }).execute()
    wrote()
    await released
    throw new Error('rolled back')
  })
  return { inserted, rollBack, done }
}

t.test('while a transaction holds the connection, a read waits for it through kysely and never sees its writes', async (t) => {
  const { db, read, throughKysely, told } = numbers(t)
  const held = heldTransaction(db)
  await held.inserted
  const query = COUNT.compile(db)
  // Read in the transaction's middle, it would count the uncommitted 3.
  const counted = read(query)
  held.rollBack()
  await t.rejects(held.done, /rolled back/)
  t.strictSame(await counted, [{ count: 2 }], 'read once the transaction was rolled back')
  t.ok(throughKysely.includes(query.sql), 'waited for the connection through kysely')
  t.notOk(told.includes(query.sql), 'not read directly')
  // The transaction gave the connection back: the next read is direct again.
  t.strictSame(await read(query), [{ count: 2 }])
  t.strictSame(told, [query.sql])
})

t.test('anything but a select is kysely\'s to run', async (t) => {
  const { db, read, throughKysely, told } = numbers(t)
  const insert = db.insertInto('numbers').values({ n: 4 }).compile()
  t.strictSame(await read(insert), [])
  t.strictSame(throughKysely, [insert.sql], 'run by kysely')
  t.strictSame(told, [])
  t.strictSame(await read(COUNT.compile(db)), [{ count: 3 }], 'and written')
})

t.test('a file\'s store reads the same way, its turn\'s transaction aside', async (t) => {
  const path = join(t.testdir(), 'numbers.sqlite')
  const store = openSqlite<Tables>(path)
  t.teardown(async () => { await store.db.destroy() })
  await sql`create table numbers (n integer primary key)`.execute(store.db)
  await store.db.insertInto('numbers').values([{ n: 1 }, { n: 2 }]).execute()
  const query = COUNT.compile(store.db)
  t.strictSame(await store.read(query), [{ count: 2 }], 'read at once, in the turn\'s read transaction')
  const held = heldTransaction(store.db)
  await held.inserted
  const counted = store.read(query)
  held.rollBack()
  await t.rejects(held.done, /rolled back/)
  t.strictSame(await counted, [{ count: 2 }], 'the uncommitted row never seen')
})
