// The plain list on PostgreSQL streams through a server-side cursor, a small chunk at a time, so
// the gateway never holds more than one chunk: while a reader is mid-list, the server is waiting
// for the next FETCH; abandoned or failed, the cursor and its transaction end and the connection
// is clean for the next request.
import { Kysely, sql } from 'kysely'
import t from 'tap'
import { kyselySource } from '../../../src/sources/index.js'
import { openStore } from '../../../src/store/index.js'
import { freshSchema, needs, uniqueName, withPostgres } from '../../helpers/services.js'

interface Tables { numbers: { id: number, label: string } }

const ROWS = 10_000
const CHUNK = 100

if (await needs(t, 'PostgreSQL')) {
  const application = uniqueName('cursor_test')
  const { url, drop } = freshSchema()
  const withName = new URL(url)
  withName.searchParams.set('application_name', application)
  const store = await openStore<Tables>(withName.toString())
  const { db } = store
  t.teardown(async () => {
    await store.close()
    await drop()
  })
  await sql`create table numbers (id integer primary key, label text not null)`.execute(db)
  await sql`insert into numbers select g, 'Number ' || g from generate_series(1, ${ROWS}) g`.execute(db)
  const numbers = kyselySource(store, () => db.selectFrom('numbers').selectAll().orderBy('id'), { chunkSize: CHUNK })

  t.test(`${ROWS} rows streamed ${CHUNK} at a time: mid-list, the server waits on the next FETCH`, async (t) => {
    let seen = 0
    let inOrder = true
    for await (const batch of numbers.stream({})) {
      inOrder &&= batch.length === CHUNK && batch.every((row) => row.id === ++seen)
      if (seen === CHUNK || seen === ROWS / 2) {
        const backend = await backendOf(application)
        // The next chunk is asked for as soon as one arrives: the backend may still be answering it.
        t.match(backend.state, /^(idle in transaction|active)$/, `after ${seen} rows the rest is still on the server`)
        t.match(backend.query, new RegExp(`^fetch forward ${CHUNK} from gateway_stream_\\d+$`), 'and it sends one chunk at a time')
      }
    }
    t.equal(seen, ROWS, 'every row')
    t.ok(inOrder, 'once, in order, a batch per FETCH')
    t.strictSame(await backendOf(application), { state: 'idle', query: 'commit' }, 'the cursor\'s transaction ended')
  })

  t.test('a reader that stops early: the cursor is closed and the connection serves the next query', async (t) => {
    const ids: number[] = []
    for await (const batch of numbers.stream({})) {
      ids.push(...batch.map((row) => row.id))
      if (ids.length >= 150) break
    }
    t.equal(ids.at(-1), Math.ceil(150 / CHUNK) * CHUNK)
    t.strictSame(await backendOf(application), { state: 'idle', query: 'commit' })
    t.equal(await numbers.count({}), ROWS)
  })

  t.test('a query failing mid-list rejects the stream and rolls its transaction back', async (t) => {
    const failing = db.selectFrom('numbers').select(sql<number>`1 / (id - 5000)`.as('x')).orderBy('id').stream(CHUNK)
    await t.rejects(drain(failing), { code: '22012' }, 'division by zero')
    t.strictSame(await backendOf(application), { state: 'idle', query: 'rollback' })
    t.equal((await db.selectFrom('numbers').select('id').where('id', '=', 7).execute()).length, 1, 'the connection is clean')
  })

  t.test('a reader that stops while the chunk asked for ahead fails: the transaction is rolled back, nothing is unhandled', async (t) => {
    const failing = kyselySource(store, () => db.selectFrom('numbers').select(sql<number>`1 / (id - ${CHUNK + 50})`.as('x')).orderBy('id'), { chunkSize: CHUNK })
    const batches = failing.stream({})[Symbol.asyncIterator]()
    t.equal((await batches.next()).value?.length, CHUNK, 'the first chunk')
    await batches.return?.()
    t.strictSame(await backendOf(application), { state: 'idle', query: 'rollback' })
    t.equal(await numbers.count({}), ROWS, 'the connection serves the next query')
  })

  t.test('inside a transaction: the stream sees its writes and leaves it open', async (t) => {
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('numbers').values({ id: ROWS + 1, label: 'one more' }).execute()
      t.equal(await drain(tx.selectFrom('numbers').selectAll().stream(1000)), ROWS + 1)
      t.equal((await sql<{ open: string }>`select count(*) as open from pg_cursors`.execute(tx)).rows[0].open, '0', 'its cursor is closed')
      await tx.deleteFrom('numbers').where('id', '=', ROWS + 1).execute()
    })
    t.equal(await countRows(db), ROWS, 'and the transaction went on to commit')
  })

  t.test('inside a transaction, a failed stream leaves the transaction for its owner to end', async (t) => {
    await t.rejects(db.transaction().execute(async (tx) => await drain(tx.selectFrom('numbers').select(sql<number>`1 / 0`.as('x')).stream(10))), { code: '22012' })
    t.strictSame(await backendOf(application), { state: 'idle', query: 'rollback' }, 'kysely rolled it back')
  })
}

/** Reads every row; how many there were. */
async function drain (rows: AsyncIterable<unknown>): Promise<number> {
  let count = 0
  for await (const row of rows) if (row !== undefined) count++
  return count
}

async function countRows (db: Kysely<Tables>): Promise<number> {
  return Number((await db.selectFrom('numbers').select(sql<string>`count(*)`.as('count')).executeTakeFirstOrThrow()).count)
}

/**
 * The state and last statement of the one pooled connection named `application`, seen from outside.
 * Current as soon as the store's last statement has succeeded: a backend reports its new state
 * before it sends ReadyForQuery, the message pg waits for to settle a successful statement.
 */
async function backendOf (application: string): Promise<{ state: string, query: string }> {
  return await withPostgres(async (client) => {
    const { rows } = await client.query('select state, query from pg_stat_activity where application_name = $1', [application])
    if (rows.length !== 1) throw new Error(`expected one connection named ${application}, found ${rows.length}`)
    return { state: rows[0].state, query: rows[0].query }
  })
}
