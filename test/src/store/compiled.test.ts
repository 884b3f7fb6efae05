import { Kysely, SqliteDialect } from 'kysely'
import SQLite from 'better-sqlite3'
import t from 'tap'
import { compiledOnce } from '../../../src/store/compiled.js'

t.test('a builder is compiled once: the same statement every time, as compile() writes it; another builder its own', async (t) => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) })
  t.teardown(async () => { await db.destroy() })
  const query = db.selectFrom('books').selectAll().where('id', '>', 3).orderBy('id')
  const first = compiledOnce(query)
  t.equal(compiledOnce(query), first, 'the one kept')
  t.strictSame({ sql: first.sql, parameters: first.parameters }, { sql: query.compile().sql, parameters: query.compile().parameters })
  const other = query.where('id', '<', 9)
  t.not(compiledOnce(other), first)
  t.strictSame(compiledOnce(other).parameters, [3, 9])
})
