// Rows read as arrays and named by the gateway are the objects better-sqlite3 would have built, key
// for key and in the same order, whatever the columns are called and hold, and whatever the schema
// became between two runs of a kept statement (src/store/rows.ts).
import SQLite from 'better-sqlite3'
import fc from 'fast-check'
import t, { type Test } from 'tap'
import { NAMES_FROM_ROWS, namedRows } from '../../../src/store/rows.js'
import { propertyRuns, propertySeed } from '../../helpers/fast-check.js'

const SEED = propertySeed(31_2026)
const NUM_RUNS = propertyRuns(150)

function database (): SQLite.Database {
  const connection = new SQLite(':memory:')
  t.teardown(() => { connection.close() })
  return connection
}

/** `sql` on `connection` as the cache keeps it, and the number of times it read the schema's version. */
function kept (connection: SQLite.Database, sql: string): { statement: ReturnType<typeof namedRows>, looks: () => number } {
  const version = connection.prepare('pragma schema_version').pluck()
  let looks = 0
  const statement = namedRows(connection.prepare(sql), () => { looks++; return version.get() as number })
  return { statement, looks: () => looks }
}

/** What better-sqlite3 reads for `sql`, as objects. */
function asRead (connection: SQLite.Database, sql: string, parameters: unknown[] = []): unknown[] {
  return connection.prepare(sql).all(...parameters)
}

/** Rows compared with their keys' order, which JSON keeps and a deep equality does not. */
function same (t: Test, actual: unknown, expected: unknown, message: string): void {
  t.equal(JSON.stringify(actual), JSON.stringify(expected), message)
  t.strictSame(actual, expected, message)
}

function numbered (connection: SQLite.Database, rows: number): void {
  connection.exec('create table entries (id integer primary key, memo text not null, amount real, note blob)')
  const insert = connection.prepare('insert into entries (id, memo, amount, note) values (?, ?, ?, ?)')
  for (let id = 1; id <= rows; id++) insert.run(id, `Entry ${id}`, id % 3 === 0 ? null : id * 1.5, id % 4 === 0 ? Buffer.from([id]) : null)
}

t.test('a run of many rows switches its statement to arrays; the rows are the same objects', async (t) => {
  const connection = database()
  numbered(connection, 40)
  const sql = 'select * from entries order by id limit ?'
  const { statement, looks } = kept(connection, sql)
  same(t, statement.all([2]), asRead(connection, sql, [2]), 'a short run, read by better-sqlite3')
  t.equal(looks(), 0, 'the schema is not looked at while rows are read as objects')
  same(t, statement.all([NAMES_FROM_ROWS]), asRead(connection, sql, [NAMES_FROM_ROWS]), 'the run that switches it')
  t.equal(looks(), 0)
  same(t, statement.all([30]), asRead(connection, sql, [30]), 'the first run as arrays')
  t.equal(looks(), 1, 'the version read before it, with its names')
  same(t, statement.all([1]), asRead(connection, sql, [1]), 'a later run')
  same(t, statement.all([0]), [], 'no rows')
  t.equal(looks(), 3, 'and read after each later run')
})

t.test('columns named with what a string literal escapes are the keys better-sqlite3 reads, run whole or streamed', async (t) => {
  const connection = database()
  // Quotes, a backslash, line breaks (U+2028 among them), what closes a literal or a template, and names an object has already.
  const names = ['a"b', 'c\\d', 'e\nf', 'g\u2028h', "i'j", 'k`l$' + '{m}', '}) + (', 'constructor', 'toString', '1']
  const sql = `select ${names.map((name, i) => `${i} as "${name.replaceAll('"', '""')}"`).join(', ')} from (select 1 union all select 2) join (select 1 from entries)`
  numbered(connection, NAMES_FROM_ROWS)
  const { statement } = kept(connection, sql)
  const expected = asRead(connection, sql)
  t.equal(expected.length, 2 * NAMES_FROM_ROWS)
  for (let run = 0; run < 3; run++) {
    same(t, statement.all([]), expected, `whole, run ${run + 1}`)
    same(t, [...statement.iterate([])], expected, `streamed, run ${run + 1}`)
  }
  t.strictSame(Object.keys((statement.all([]) as object[])[0]), ['1', ...names.slice(0, -1)], 'every name a key of its own, an index first as JavaScript orders it')
})

t.test('the schema changes between two runs: each run is named by its own columns', async (t) => {
  const connection = database()
  numbered(connection, 40)
  const sql = 'select * from entries order by id limit 20'
  const { statement, looks } = kept(connection, sql)
  statement.all([])
  same(t, statement.all([]), asRead(connection, sql), 'named at first')
  connection.exec('alter table entries rename column memo to label')
  same(t, statement.all([]), asRead(connection, sql), 'a column renamed')
  t.match(statement.all([])[0], { label: 'Entry 1' }, 'and on the next run, named again')
  connection.exec('alter table entries add column posted text default \'2026-01-31\'')
  same(t, statement.all([]), asRead(connection, sql), 'a column added')
  same(t, statement.all([]), asRead(connection, sql), 'and the run after')
  // The same number of columns in another order, twice: only their names tell the values apart.
  const move = (order: string) => {
    connection.exec(`
      create table moved (${order});
      insert into moved (id, label, amount, note, posted) select id, label, amount, note, posted from entries;
      drop table entries;
      alter table moved rename to entries;`)
  }
  move('amount real, label text not null, id integer primary key, note blob, posted text')
  same(t, statement.all([]), asRead(connection, sql), 'the columns moved')
  same(t, statement.all([]), asRead(connection, sql), 'and the run after')
  move('posted text, note blob, id integer primary key, label text not null, amount real')
  same(t, statement.all([]), asRead(connection, sql), 'moved again')
  // Around the runs as arrays: after each, and before the first and each one after a change.
  t.equal(looks(), 8, 'the version was read around every run')
})

t.test('names that cannot be set one by one leave the statement to better-sqlite3', async (t) => {
  const connection = database()
  numbered(connection, 40)
  for (const sql of [
    'select a.id, b.id, a.memo from entries a join entries b on b.id = a.id order by a.id',
    'select id, memo as "__proto__" from entries order by id'
  ]) {
    const { statement } = kept(connection, sql)
    same(t, statement.all([]), asRead(connection, sql), `${sql}: switching`)
    same(t, statement.all([]), asRead(connection, sql), `${sql}: read again as objects`)
    same(t, statement.all([]), asRead(connection, sql), `${sql}: and from then on`)
    same(t, [...statement.iterate([])], asRead(connection, sql), `${sql}: streamed as objects`)
    const streamed = kept(connection, sql).statement
    same(t, [...streamed.iterate([])], asRead(connection, sql), `${sql}: a stream finding it out starts again as objects`)
    same(t, streamed.all([]), asRead(connection, sql), `${sql}: and its runs are objects`)
  }
})

t.test('a stream is named by the columns its own run reads, and ends when told', async (t) => {
  const connection = database()
  numbered(connection, 40)
  const sql = 'select * from entries order by id'
  const { statement, looks } = kept(connection, sql)
  same(t, [...statement.iterate([])], asRead(connection, sql), 'streamed')
  connection.exec('alter table entries rename column memo to label')
  const rows = statement.iterate([])
  t.equal(rows[Symbol.iterator](), rows, 'its own iterator')
  same(t, rows.next().value, asRead(connection, sql)[0], 'the renamed column, from the first row')
  t.ok(statement.busy, 'busy while it iterates')
  t.strictSame(rows.return?.(), { done: true, value: undefined }, 'ended early')
  t.notOk(statement.busy, 'and free again')
  same(t, [...statement.iterate([])], asRead(connection, sql), 'streamed again')
  same(t, [...kept(connection, 'select * from entries where id < 0').statement.iterate([])], [], 'a stream of no rows')
  t.equal(looks(), 0, 'a stream reads no version')
})

t.test('a statement that changes rows and returns them runs as better-sqlite3 runs it', async (t) => {
  const connection = database()
  numbered(connection, 2)
  const { statement } = kept(connection, 'update entries set memo = memo || \'!\' returning id, memo')
  t.match(statement.run([]), { changes: 2 })
  same(t, statement.all([]), [{ id: 1, memo: 'Entry 1!!' }, { id: 2, memo: 'Entry 2!!' }], 'its rows')
})

t.test('any columns and values: the rows are those better-sqlite3 reads, run whole or streamed', async (t) => {
  const name = fc.string({ minLength: 1, maxLength: 8 }).filter((text) => !text.includes('\u0000'))
  const value = fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.string(), fc.constant(null), fc.uint8Array({ maxLength: 4 }).map((bytes) => Buffer.from(bytes)))
  const table = fc.uniqueArray(name, { minLength: 1, maxLength: 6, comparator: (a, b) => a.toLowerCase() === b.toLowerCase() })
    .chain((columns) => fc.record({ columns: fc.constant(columns), rows: fc.array(fc.array(value, { minLength: columns.length, maxLength: columns.length }), { maxLength: 40 }) }))
  await fc.assert(fc.asyncProperty(table, async ({ columns, rows }) => {
    const connection = new SQLite(':memory:')
    try {
      const quoted = columns.map((column) => `"${column.replaceAll('"', '""')}"`)
      connection.exec(`create table drawn (${quoted.join(', ')})`)
      const insert = connection.prepare(`insert into drawn values (${columns.map(() => '?').join(', ')})`)
      for (const row of rows) insert.run(...row)
      const sql = 'select * from drawn'
      const { statement } = kept(connection, sql)
      const expected = JSON.stringify(asRead(connection, sql))
      for (let run = 0; run < 3; run++) {
        if (JSON.stringify(statement.all([])) !== expected) return false
        if (JSON.stringify([...statement.iterate([])]) !== expected) return false
      }
      return true
    } finally {
      connection.close()
    }
  }), { seed: SEED, numRuns: NUM_RUNS })
  t.pass('every drawn table read the same')
})
