// The PostgreSQL store: set up in its own schema, idempotently, by replicas starting together;
// served with the same types as SQLite; a pooled connection lost while idle is survived; and a
// query that finds every connection held waits a bounded time, then fails as unavailable (a 503).
import { sql } from 'kysely'
import pg from 'pg'
import t, { type Test } from 'tap'
import { DEMO_BOOKS, LEDGER_SIZE, setUpDemo } from '../../../demo/catalogue.js'
import { isStoreUnavailable } from '../../../src/store/errors.js'
import { openStore, type StoreOptions } from '../../../src/store/index.js'
import type { Db } from '../../../demo/database.js'
import { AUTH, buildApp } from '../../helpers/app.js'
import { expectProblem } from '../../helpers/problem.js'
import { freshSchema, needs, SERVICES, uniqueName, withPostgres } from '../../helpers/services.js'
import { heldOpen } from '../../helpers/until.js'

if (await needs(t, 'PostgreSQL')) {
  t.test('the catalogue is created in the schema the URL names, and left as it is on the next start', async (t) => {
    const { url, schema, drop } = freshSchema()
    t.teardown(drop)
    const first = await openStore(url, { setUp: setUpDemo })
    await first.db.updateTable('books').set({ title: 'Renamed' }).where('id', '=', 1).execute()
    await first.close()
    const second = await openStore(url, { setUp: setUpDemo })
    t.teardown(() => second.close())
    const books = await second.db.selectFrom('books').selectAll().orderBy('id').execute()
    t.equal(books.length, DEMO_BOOKS.length)
    t.equal(books[0].title, 'Renamed', 'a restart never overwrites a row')
    const tables = await withPostgres(async (client) => (await client.query('select table_name from information_schema.tables where table_schema = $1 order by 1', [schema])).rows)
    t.strictSame(tables.map((row) => row.table_name), ['authors', 'book_covers', 'books', 'invoices', 'ledger'], 'in that schema')
  })

  t.test('values come back as SQLite gives them: integers, decimals and dates as text, COUNT as a bigint string', async (t) => {
    const db = await fresh(t)
    t.strictSame(await db.selectFrom('books').selectAll().where('id', '=', 2).executeTakeFirst(), {
      id: 2, title: 'The Lathe of Heaven', status: 'draft', price: '9.99', published_on: null, author_id: 1
    })
    t.strictSame(await db.selectFrom('ledger').selectAll().where('id', '=', 1).executeTakeFirst(), {
      id: 1, memo: 'Entry 1', amount: '80.19', posted_at: '2026-01-01T00:00:00Z', account_id: 2
    })
    const { count } = await db.selectFrom('ledger').select(sql<string>`count(*)`.as('count')).executeTakeFirstOrThrow()
    t.equal(count, String(LEDGER_SIZE))
  })

  t.test('replicas starting together on an empty schema: one sets up, the others find it done', async (t) => {
    const { url, drop } = freshSchema()
    t.teardown(drop)
    const stores = await Promise.all(Array.from({ length: 4 }, async () => await openStore(url, { setUp: setUpDemo })))
    t.teardown(() => Promise.all(stores.map(async (store) => { await store.close() })))
    for (const { db } of stores) t.equal((await db.selectFrom('ledger').select('id').execute()).length, LEDGER_SIZE)
  })

  t.test('a search_path given in options, not a plain name: used as it is, nothing created', async (t) => {
    const schema = uniqueName('gateway_test')
    await withPostgres(async (client) => { await client.query(`create schema ${schema}`) })
    t.teardown(() => withPostgres(async (client) => { await client.query(`drop schema ${schema} cascade`) }))
    const url = new URL(SERVICES.PostgreSQL)
    url.searchParams.set('options', `-c search_path="${schema}"`)
    const { db, close } = await openStore(url.toString(), { setUp: setUpDemo })
    t.teardown(close)
    t.equal((await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema, schema)
    t.equal((await db.selectFrom('books').select('id').execute()).length, DEMO_BOOKS.length)
  })

  t.test('a server out of reach: the start fails with an error the 503 mapping knows', async (t) => {
    const error = await openStore('postgres://postgres@127.0.0.1:1/test?schema=nowhere', { setUp: setUpDemo }).then(() => undefined, (caught: unknown) => caught)
    t.ok(isStoreUnavailable(error), String(error))
  })

  t.test('an idle connection killed by the server is reported, and the next query opens another', async (t) => {
    let told: (error: Error) => void = () => {}
    const reported = new Promise<Error>((resolve) => { told = resolve })
    const db = await fresh(t, { onConnectionError: (error) => { told(error) } })
    t.match((await heldOpen(killIdleConnections(db).then(async () => await reported))).message, /terminat/i)
    t.equal((await db.selectFrom('authors').select('id').execute()).length, 1)
  })

  t.test('with no one told, an idle connection killed is survived all the same', async (t) => {
    const lost = poolErrors(t)
    const db = await fresh(t)
    // The pool has dropped the connection by the time it emits the error, told to no one here.
    await heldOpen(killIdleConnections(db).then(async () => { await lost }))
    t.equal((await db.selectFrom('authors').select('id').execute()).length, 1)
  })

  t.test('every pooled connection held: a query waits acquireTimeoutMs, fails as unavailable, and queries succeed once they are freed', async (t) => {
    const db = await fresh(t, { acquireTimeoutMs: 200 })
    const release = await holdEvery(db, PG_POOL_SIZE)
    t.teardown(release)
    const error = await db.selectFrom('authors').select('id').execute().then(() => undefined, (caught: unknown) => caught)
    t.match(error, { message: 'timeout exceeded when trying to connect' }, 'pg-pool\'s own failure, not a hang')
    t.ok(isStoreUnavailable(error), 'a 503 the client may retry')
    await release()
    t.equal((await db.selectFrom('authors').select('id').execute()).length, 1)
  })

  t.test('through the app, a request that finds every connection held is a 503 store-unavailable with Retry-After', async (t) => {
    const { url, drop } = freshSchema()
    t.teardown(drop)
    const { app } = await buildApp(t, { databaseUrl: url, acquireTimeoutMs: 200 })
    const release = await holdEvery(app.store.db, PG_POOL_SIZE)
    t.teardown(release)
    const res = await app.inject({ url: '/books/1', headers: AUTH })
    expectProblem(t, res, { status: 503, kind: 'store-unavailable' })
    t.ok(res.headers['retry-after'], 'Retry-After says when to try again')
    await release()
    t.equal((await app.inject({ url: '/books/1', headers: AUTH })).statusCode, 200, 'served once they are freed')
  })
}

/** pg-pool's default `max`, which the store keeps. */
const PG_POOL_SIZE = 10

/** How often a holder asks for a connection before its failure is the test's. */
const OPENING_ATTEMPTS = 20

/**
 * Holds `count` of `db`'s pooled connections, as slow plain lists would, and resolves once all are
 * held, with what frees them (and settles once they are back in the pool). The stores here wait
 * only 200 ms for a connection, and opening ten at once can take longer on a busy machine: a holder
 * whose connection was not opened in time asks again (the connections opened meanwhile stay pooled),
 * so the wait the test measures starts once every connection is held, however long opening took.
 */
async function holdEvery (db: Db, count: number): Promise<() => Promise<void>> {
  let free = () => {}
  const freed = new Promise<void>((resolve) => { free = resolve })
  const entered: Array<Promise<void>> = []
  const holders = Array.from({ length: count }, async () => {
    let inside = () => {}
    entered.push(new Promise<void>((resolve) => { inside = resolve }))
    for (let attempt = 1; ; attempt++) {
      try {
        await db.connection().execute(async () => {
          inside()
          await freed
        })
        return
      } catch (error) {
        if (attempt === OPENING_ATTEMPTS || !isStoreUnavailable(error)) throw error
      }
    }
  })
  // A holder that fails to get its connection rejects here, rather than leaving the wait to hang.
  await Promise.race([Promise.all(entered), Promise.all(holders)])
  return async () => {
    free()
    await Promise.all(holders)
  }
}

/** A store on a fresh schema, closed and dropped after `t`. */
async function fresh (t: Test, options: StoreOptions = {}): Promise<Db> {
  const { url, drop } = freshSchema()
  const store = await openStore(url, { ...options, setUp: setUpDemo })
  t.teardown(async () => {
    await store.close()
    await drop()
  })
  return store.db
}

/** Terminates this store's pooled connections from outside, as a server restart would. */
async function killIdleConnections (db: Db): Promise<void> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)
  await withPostgres(async (client) => { await client.query('select pg_terminate_backend($1)', [rows[0].pid]) })
}

/**
 * Resolves at the next 'error' any pg pool emits (an idle client lost, already removed from the
 * pool), seen through the pools' shared prototype for the length of `t`: a store keeps its pool private.
 */
async function poolErrors (t: Test): Promise<void> {
  const prototype = pg.Pool.prototype as unknown as { emit: (event: string | symbol, ...args: unknown[]) => boolean }
  const emit = prototype.emit
  t.teardown(() => { prototype.emit = emit })
  await new Promise<void>((resolve) => {
    prototype.emit = function (this: unknown, event, ...args) {
      if (event === 'error') resolve()
      return emit.call(this, event, ...args)
    }
  })
}
