// The reads of a turn share one read transaction on a file's connection; anything else ends it
// first, so writes are committed as they are made, and a stream holds no lock past its turn.
import { join } from 'node:path'
import { setImmediate as turn } from 'node:timers/promises'
import SQLite from 'better-sqlite3'
import t, { type Test } from 'tap'
import { openSqlite } from '../../../src/store/sqlite.js'
import { statementCache, type KeptStatement } from '../../../src/store/statements.js'

const dir = t.testdir()
let files = 0

/** A WAL file of two numbers, its connection with turn reads, and a second connection to it (another process's). */
function numbers (t: Test, ofSnapshot?: ReadonlySet<string>): { connection: SQLite.Database, other: SQLite.Database, prepare: (sql: string) => KeptStatement } {
  const path = join(dir, `numbers-${++files}.sqlite`)
  const connection = new SQLite(path)
  connection.pragma('journal_mode = WAL')
  connection.exec('create table numbers (n integer primary key)')
  connection.exec('insert into numbers (n) values (1), (2)')
  const other = new SQLite(path)
  t.teardown(() => { other.close(); if (connection.open) connection.close() })
  const cache = statementCache({ turnReads: true, ofSnapshot })
  return { connection, other, prepare: (sql) => cache.prepare(connection, sql) }
}

const COUNT = 'select count(*) as count from numbers'

t.test('the reads of a turn share one transaction, committed when the turn ends', async (t) => {
  const { connection, prepare } = numbers(t)
  t.notOk(connection.inTransaction)
  t.strictSame(prepare(COUNT).all([]), [{ count: 2 }])
  t.ok(connection.inTransaction, 'opened by the first read')
  t.strictSame(prepare('select n from numbers order by n').all([]), [{ n: 1 }, { n: 2 }])
  await turn()
  t.notOk(connection.inTransaction, 'committed as the turn ended')
  prepare(COUNT).all([])
  t.ok(connection.inTransaction, 'and the next turn opens its own')
  await turn()
  t.notOk(connection.inTransaction)
})

t.test('the reads of a turn read one snapshot: a commit by another connection is seen from the next turn', async (t) => {
  const { other, prepare } = numbers(t)
  t.strictSame(prepare(COUNT).all([]), [{ count: 2 }])
  other.exec('insert into numbers (n) values (3)')
  t.strictSame(prepare(COUNT).all([]), [{ count: 2 }], 'the same turn: the same snapshot')
  await turn()
  t.strictSame(prepare(COUNT).all([]), [{ count: 3 }])
})

t.test('a write ends the turn\'s transaction first and is committed at once, RETURNING too', async (t) => {
  const { connection, other, prepare } = numbers(t)
  prepare(COUNT).all([])
  t.ok(connection.inTransaction)
  t.match(prepare('insert into numbers (n) values (3)').run([]), { changes: 1 })
  t.notOk(connection.inTransaction, 'no transaction left open by the write')
  t.strictSame(other.prepare(COUNT).get(), { count: 3 }, 'another connection sees it before the turn ends')
  prepare(COUNT).all([])
  // A statement that returns rows and writes: kysely runs it with `all`, and it is a write.
  t.strictSame(prepare('insert into numbers (n) values (4) returning n').all([]), [{ n: 4 }])
  t.notOk(connection.inTransaction)
  t.strictSame(other.prepare(COUNT).get(), { count: 4 })
  t.strictSame(prepare(COUNT).all([]), [{ count: 4 }], 'and the reads after it see it')
})

t.test('a stream ends the turn\'s transaction first, and runs in a statement of its own', async (t) => {
  const { connection, other, prepare } = numbers(t)
  prepare(COUNT).all([])
  const rows = prepare('select n from numbers order by n').iterate([])
  t.notOk(connection.inTransaction)
  t.strictSame([...rows], [{ n: 1 }, { n: 2 }])
  other.exec('insert into numbers (n) values (3)')
  t.strictSame(prepare(COUNT).all([]), [{ count: 3 }], 'a new transaction after it, on the data as it is now')
})

t.test('a transaction of the caller\'s own is joined, not ended', async (t) => {
  const { connection, other, prepare } = numbers(t)
  prepare(COUNT).all([])
  prepare('begin immediate').run([])
  t.ok(connection.inTransaction)
  prepare('insert into numbers (n) values (3)').run([])
  t.strictSame(prepare(COUNT).all([]), [{ count: 3 }], 'a read inside it sees its write')
  await turn()
  t.ok(connection.inTransaction, 'the turn\'s end leaves it open')
  t.strictSame(other.prepare(COUNT).get(), { count: 2 }, 'uncommitted')
  prepare('commit').run([])
  t.strictSame(other.prepare(COUNT).get(), { count: 3 })
})

t.test('a commit that fails as the turn ends is tried again by the next statement, which meets its error', async (t) => {
  const { connection, other, prepare } = numbers(t)
  prepare(COUNT).all([])
  // A statement iterating on the connection, outside the cache: nothing else may run until it ends.
  const holding = connection.prepare('select n from numbers').iterate()
  holding.next()
  await turn()
  other.exec('insert into numbers (n) values (3)')
  t.throws(() => prepare(COUNT).all([]), { name: 'TypeError', message: /busy/ }, 'no read from the old snapshot')
  holding.return!()
  t.strictSame(prepare(COUNT).all([]), [{ count: 3 }], 'ended, and read on the data as it is now')
})

t.test('a connection closed with the turn\'s transaction open ends the turn quietly', async (t) => {
  const { connection, prepare } = numbers(t)
  prepare(COUNT).all([])
  connection.close()
  await turn()
  t.notOk(connection.open)
})

/** A statement of the snapshot, as the cache is told of it, whose every run is counted by `ticks`. */
const TICK = 'select tick() as tick'
const BOUND_TICK = 'select tick() + ? as tick'
/** Which writes this connection made: what part of the data's version a write moves. */
const CHANGES = 'select total_changes() as changes'

function ticking (t: Test): ReturnType<typeof numbers> & { ticks: () => number } {
  const opened = numbers(t, new Set([TICK, BOUND_TICK, CHANGES]))
  let ticks = 0
  opened.connection.function('tick', { deterministic: false }, () => ++ticks)
  return { ...opened, ticks: () => ticks }
}

t.test('a statement of the snapshot runs once in a turn\'s transaction, and again in the next', async (t) => {
  const { prepare, ticks } = ticking(t)
  t.strictSame(prepare(TICK).all([]), [{ tick: 1 }])
  t.strictSame(prepare(TICK).all([]), [{ tick: 1 }], 'the rows read first in the turn')
  t.equal(ticks(), 1, 'run once')
  t.ok(Object.isFrozen(prepare(TICK).all([])), 'rows handed to every request of the turn, which none may change')
  await turn()
  t.strictSame(prepare(TICK).all([]), [{ tick: 2 }], 'the next turn runs it again')
  t.equal(ticks(), 2)
})

t.test('a write ends the turn\'s transaction, and the statement of the snapshot runs again after it', async (t) => {
  const { prepare, ticks } = ticking(t)
  // The two rows the table was made with.
  t.strictSame(prepare(CHANGES).all([]), [{ changes: 2 }])
  prepare(TICK).all([])
  prepare('insert into numbers (n) values (3)').run([])
  t.strictSame(prepare(TICK).all([]), [{ tick: 2 }], 'run again in the same turn, after the write')
  t.equal(ticks(), 2)
  t.strictSame(prepare(CHANGES).all([]), [{ changes: 3 }], 'what names the data names the write, though the turn is the same')
})

t.test('a statement of the snapshot runs every time in a transaction not the turn\'s, and with parameters', async (t) => {
  const { prepare, ticks } = ticking(t)
  prepare('begin immediate').run([])
  t.strictSame(prepare(TICK).all([]), [{ tick: 1 }])
  t.strictSame(prepare(TICK).all([]), [{ tick: 2 }], 'a caller\'s own transaction: it may write between two reads')
  prepare('commit').run([])
  t.strictSame(prepare(BOUND_TICK).all([10]), [{ tick: 13 }])
  t.strictSame(prepare(BOUND_TICK).all([10]), [{ tick: 14 }], 'something to bind: run as it is')
  t.strictSame(prepare('select tick() + 0 as tick').all([]), [{ tick: 5 }], 'a statement not named runs as it is')
  t.equal(ticks(), 5)
})

t.test('a store on a file reads a request\'s statements in one transaction, and its writes commit at once', async (t) => {
  const path = join(dir, 'store.sqlite')
  const store = openSqlite<{ numbers: { n: number } }>(path)
  t.teardown(async () => { await store.db.destroy() })
  await store.db.schema.createTable('numbers').addColumn('n', 'integer', (column) => column.primaryKey()).execute()
  await store.db.insertInto('numbers').values([{ n: 1 }, { n: 2 }]).execute()
  const other = new SQLite(path)
  t.teardown(() => { other.close() })
  const count = async (): Promise<number> => Number((await store.db.selectFrom('numbers').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count)
  t.equal(await count(), 2)
  other.exec('insert into numbers (n) values (3)')
  t.equal(await count(), 2, 'within the turn, its snapshot')
  await turn()
  t.equal(await count(), 3)
  // kysely's own transaction after a read in the same turn: begun on the data as it is, committed by kysely.
  await store.db.transaction().execute(async (trx) => {
    await trx.insertInto('numbers').values({ n: 4 }).execute()
    t.equal(Number((await trx.selectFrom('numbers').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count), 4)
  })
  t.strictSame(other.prepare('select count(*) as count from numbers').get(), { count: 4 }, 'committed when kysely commits')
  await store.db.insertInto('numbers').values({ n: 5 }).execute()
  t.strictSame(other.prepare('select count(*) as count from numbers').get(), { count: 5 }, 'a write alone is committed at once')
})
