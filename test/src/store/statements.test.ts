// Prepared statements are kept per connection and SQL text, never handed out while busy, and bounded.
import SQLite from 'better-sqlite3'
import t from 'tap'
import { statementCache } from '../../../src/store/statements.js'

function numbers (): SQLite.Database {
  const connection = new SQLite(':memory:')
  connection.exec('create table numbers (n integer primary key)')
  connection.prepare('insert into numbers (n) values (?)').run(1)
  connection.prepare('insert into numbers (n) values (?)').run(2)
  t.teardown(() => { connection.close() })
  return connection
}

t.test('the same SQL on the same connection: the same statement, prepared once', async (t) => {
  const connection = numbers()
  const cache = statementCache()
  const first = cache.prepare(connection, 'select n from numbers order by n')
  t.equal(cache.prepare(connection, 'select n from numbers order by n'), first)
  t.not(cache.prepare(connection, 'select n from numbers where n = ?'), first, 'other SQL, another statement')
  t.not(cache.prepare(numbers(), 'select n from numbers order by n'), first, 'another connection, its own')
  t.strictSame(first.all([]), [{ n: 1 }, { n: 2 }])
})

t.test('a statement busy iterating is not handed out: a fresh one runs beside it', async (t) => {
  const connection = numbers()
  const cache = statementCache()
  const sql = 'select n from numbers order by n'
  const streaming = cache.prepare(connection, sql)
  const rows = streaming.iterate([])
  t.strictSame(rows.next().value, { n: 1 })
  const beside = cache.prepare(connection, sql)
  t.not(beside, streaming)
  t.strictSame(beside.all([]), [{ n: 1 }, { n: 2 }], 'runs while the other iterates')
  t.strictSame([...rows], [{ n: 2 }], 'and the stream goes on')
  t.equal(cache.prepare(connection, sql), beside, 'the fresh one is kept from then on')
})

t.test('past the bound the kept statements are dropped and kept again from scratch', async (t) => {
  const connection = numbers()
  const cache = statementCache({ kept: 2 })
  const one = cache.prepare(connection, 'select 1')
  cache.prepare(connection, 'select 2')
  t.equal(cache.prepare(connection, 'select 1'), one, 'within the bound')
  cache.prepare(connection, 'select 3')
  t.not(cache.prepare(connection, 'select 1'), one, 'prepared again once the bound was passed')
})
