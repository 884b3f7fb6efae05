// A whole-list read on SQLite runs on a read-only connection of its own, so a stream its client
// reads slowly (or not at all) never holds the connection every other query runs on.
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import t from 'tap'
import { kyselySource } from '../../../src/sources/index.js'
import { openStore } from '../../../src/store/index.js'
import { isStoreUnavailable } from '../../../src/store/errors.js'
import { sqliteReaders } from '../../../src/store/sqlite-readers.js'

interface Tables {
  entries: { id: number, memo: string }
}

const ROWS = 2_000
const path = join(t.testdir(), 'entries.sqlite')
const queries: string[] = []
const store = await openStore<Tables>(path, { onQuery: (sql) => { queries.push(sql) } })
const { db } = store
t.teardown(async () => { await store.close() })

await db.schema.createTable('entries').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('memo', 'text').execute()
await db.insertInto('entries').values(Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, memo: `Entry ${i + 1}` }))).execute()

/** A read-only connection to the test's file, as the store opens one for each stream. */
const openReader = () => new SQLite(path, { readonly: true })

const source = kyselySource(store, () => db.selectFrom('entries').selectAll().orderBy('id'), { chunkSize: 10 })

/** Settles with `promise`, or rejects once `ms` have passed: a query stuck behind a stream fails here. */
async function within<T> (promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error(`still waiting after ${ms} ms`)) }, ms) })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

t.test('a stream read one batch and left open holds nothing: pages, counts and writes go on', async (t) => {
  const rows = source.stream({})[Symbol.asyncIterator]()
  const first = (await rows.next()).value as ReadonlyArray<{ id: number }>
  t.strictSame(first.map((row) => row.id), Array.from({ length: 10 }, (_, i) => i + 1), 'a batch of chunkSize rows')
  t.equal(await within(source.count({})), ROWS)
  t.strictSame((await within(source.slice({}, 10, 2))).map((row) => row.id), [11, 12])
  await within(db.insertInto('entries').values({ id: ROWS + 1, memo: 'Written mid-stream' }).execute())
  // The stream reads the snapshot it began with: the row written since is not in it.
  let count = first.length
  for (let next = await rows.next(); next.done !== true; next = await rows.next()) count += next.value.length
  t.equal(count, ROWS)
  await db.deleteFrom('entries').where('id', '>', ROWS).execute()
})

t.test('the stream\'s SQL is told to onQuery like every other query: its first batch, then the rest', async (t) => {
  queries.length = 0
  for await (const batch of source.stream({})) if (batch.some((row) => row.id === 3)) break
  t.strictSame(queries, ['select * from "entries" order by "id" limit ?'], 'a stream closed within its first batch read only that')
  queries.length = 0
  let count = 0
  for await (const batch of source.stream({})) count += batch.length
  t.equal(count, ROWS)
  t.strictSame(queries, ['select * from "entries" order by "id" limit ?', 'select * from "entries" order by "id" limit ? offset ?'])
})

/** The ids of every row `rows` streams, and the size of each batch. */
async function streamed (rows: AsyncIterable<ReadonlyArray<{ id: number }>>): Promise<{ ids: number[], batches: number[] }> {
  const ids: number[] = []
  const batches: number[] = []
  for await (const batch of rows) {
    ids.push(...batch.map((row) => row.id))
    batches.push(batch.length)
  }
  return { ids, batches }
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)

t.test('a list no longer than its first batch is one statement run whole; one row more, and the rest follows it, every row once and in order', async (t) => {
  const upTo = (last: number) => kyselySource(store, () => db.selectFrom('entries').selectAll().where('id', '<=', last).orderBy('id'), { chunkSize: 10 })
  queries.length = 0
  t.strictSame(await streamed(upTo(10).stream({})), { ids: range(1, 10), batches: [10] })
  t.strictSame(queries, ['select * from "entries" where "id" <= ? order by "id" limit ?'], 'one statement')
  queries.length = 0
  t.strictSame(await streamed(upTo(11).stream({})), { ids: range(1, 11), batches: [10, 1] })
  t.equal(queries.length, 2, 'the first batch, and the rest')
  t.strictSame(await streamed(upTo(25).stream({})), { ids: range(1, 25), batches: [10, 10, 5] })
  t.strictSame(await streamed(upTo(0).stream({})), { ids: [], batches: [] }, 'no rows, no batch')
})

t.test('a list that bounds its own rows is read as it is, a row at a time', async (t) => {
  const bounded = kyselySource(store, () => db.selectFrom('entries').selectAll().orderBy('id').limit(25).offset(5), { chunkSize: 10 })
  queries.length = 0
  t.strictSame(await streamed(bounded.stream({})), { ids: range(6, 30), batches: [10, 10, 5] })
  t.strictSame(queries, ['select * from "entries" order by "id" limit ? offset ?'], 'its own statement, once')
})

t.test('a reader kept after its first batch, read to the end or closed there, holds no snapshot: the next stream reads the data as it is then', async (t) => {
  const first = kyselySource(store, () => db.selectFrom('entries').selectAll().where('id', '<=', 10).orderBy('id'), { chunkSize: 10 })
  t.equal((await streamed(first.stream({}))).ids.length, 10)
  await db.insertInto('entries').values({ id: -1, memo: 'Written between two streams' }).execute()
  t.teardown(async () => { await db.deleteFrom('entries').where('id', '<', 1).execute() })
  t.strictSame((await streamed(first.stream({}))).ids.slice(0, 2), [-1, 1], 'the list read to its end within its first batch')
  const long = source.stream({})[Symbol.asyncIterator]()
  t.equal(((await long.next()).value as unknown[]).length, 10)
  await long.return?.(undefined)
  await db.insertInto('entries').values({ id: -2, memo: 'Written after a stream closed early' }).execute()
  t.strictSame((await streamed(first.stream({}))).ids.slice(0, 3), [-2, -1, 1], 'the list closed after its first batch')
})

t.test('beyond the limit a stream waits for a reader; closing one, even early, frees it', async (t) => {
  let waited = 0
  let told: () => void = () => {}
  const waiting = new Promise<void>((resolve) => { told = resolve })
  const readers = sqliteReaders(openReader, { maxReaders: 1, onWait: () => { waited++; told() } })
  t.teardown(readers.close)
  const compiled = db.selectFrom('entries').select('id').orderBy('id').compile()
  const first = readers.stream(compiled, 1)[Symbol.asyncIterator]()
  t.strictSame((await first.next()).value, [{ id: 1 }])
  t.equal(waited, 0, 'the first found a reader free')
  const second = readers.stream(compiled, 1)[Symbol.asyncIterator]()
  let started = false
  const secondRow = second.next().then((result) => { started = true; return result })
  await waiting
  t.notOk(started, 'the second waits while the first is open')
  await first.return?.(undefined)
  t.strictSame((await within(secondRow)).value, [{ id: 1 }], 'then reads')
  await second.return?.(undefined)
  const third = readers.stream(compiled, 1)[Symbol.asyncIterator]()
  t.strictSame((await within(third.next())).value, [{ id: 1 }], 'the slot was given back')
  await third.return?.(undefined)
  t.equal(waited, 1, 'only the second had to wait')
})

t.test('a stream that fails gives its reader back, and says why', async (t) => {
  const readers = sqliteReaders(openReader, { maxReaders: 1 })
  t.teardown(readers.close)
  const broken = db.selectFrom('entries').select('id').where('memo', '=', 'x').compile()
  const rows = readers.stream({ ...broken, sql: 'select id from no_such_table' }, 1)[Symbol.asyncIterator]()
  await t.rejects(rows.next(), /no such table/)
  t.equal((await within(readers.stream(broken, 1)[Symbol.asyncIterator]().next())).done, true, 'the next stream reads (no rows), and ends')
})

t.test('a reader count must be a positive integer', async (t) => {
  t.throws(() => sqliteReaders(openReader, { maxReaders: 0 }), /maxReaders must be a positive integer; got 0/)
})

t.test('a stream waits for a reader at most waitMs, then fails as unavailable, and leaves the queue', async (t) => {
  const readers = sqliteReaders(openReader, { maxReaders: 1, waitMs: 50 })
  t.teardown(readers.close)
  const compiled = db.selectFrom('entries').select('id').orderBy('id').compile()
  const holder = readers.stream(compiled, 1)[Symbol.asyncIterator]()
  t.strictSame((await holder.next()).value, [{ id: 1 }])
  const late = readers.stream(compiled, 1)[Symbol.asyncIterator]()
  const error = await t.rejects(late.next(), { name: 'StoreUnavailableError', message: 'All 1 SQLite readers stayed busy for 50 ms.' })
  t.ok(isStoreUnavailable(error), 'a 503 the client may retry')
  await holder.return?.(undefined)
  const next = readers.stream(compiled, 1)[Symbol.asyncIterator]()
  t.strictSame((await within(next.next())).value, [{ id: 1 }], 'the freed reader goes to the next stream, not to the one that gave up')
  await next.return?.(undefined)
})

t.test('a reader is kept for the next stream; one whose stream failed, one of a file the path no longer names, and one ending after close are closed', async (t) => {
  const opened: SQLite.Database[] = []
  let generation = 0
  const readers = sqliteReaders(() => {
    opened.push(openReader())
    return opened[opened.length - 1]
  }, { maxReaders: 2, generation: () => generation })
  const compiled = db.selectFrom('entries').select('id').where('id', '<=', 3).orderBy('id').compile()
  const all = async (): Promise<number> => {
    let count = 0
    for await (const batch of readers.stream(compiled, 2)) count += batch.length
    return count
  }
  t.equal(await all(), 3)
  t.equal(await all(), 3)
  t.equal(opened.length, 1, 'the second stream read on the first one\'s reader')
  const early = readers.stream(compiled, 1)[Symbol.asyncIterator]()
  await early.next()
  await early.return?.(undefined)
  t.equal(opened.length, 1, 'a stream closed early by its consumer keeps its reader too')

  await t.rejects(readers.stream({ ...compiled, sql: 'select id from no_such_table' }, 1)[Symbol.asyncIterator]().next(), /no such table/)
  t.equal(opened[0].open, false, 'a failed stream\'s reader is closed')
  t.equal(await all(), 3)
  t.equal(opened.length, 2, 'and the next stream opens another')

  generation++
  t.equal(await all(), 3)
  t.equal(opened[1].open, false, 'a reader of an earlier file is closed, not used')
  t.equal(opened.length, 3)

  const streaming = readers.stream(compiled, 1)[Symbol.asyncIterator]()
  await streaming.next()
  t.equal(await all(), 3, 'beside it, a stream on a reader of its own')
  t.equal(opened.length, 4)
  readers.close()
  t.equal(opened[3].open, false, 'close closes the kept readers')
  t.equal(opened[2].open, true, 'but not one still streaming')
  await streaming.return?.(undefined)
  t.equal(opened[2].open, false, 'which is closed when its stream ends')
})
