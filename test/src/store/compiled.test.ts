import { Kysely, SqliteDialect } from 'kysely'
import SQLite from 'better-sqlite3'
import t from 'tap'
import { compiledOnce } from '../../../src/store/compiled.js'
import { firstBatchOf } from '../../../src/store/first-batch.js'

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

t.test('a list split after its first batch is compiled once per batch size; one that bounds its own rows is not split', async (t) => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) })
  t.teardown(async () => { await db.destroy() })
  const query = db.selectFrom('books').selectAll().where('id', '>', 3).orderBy('id')
  const split = firstBatchOf(query, 10)!
  t.equal(firstBatchOf(query, 10), split, 'the one kept')
  t.strictSame([split.first.sql, split.first.parameters], ['select * from "books" where "id" > ? order by "id" limit ?', [3, 11]], 'one row more than the batch')
  t.strictSame([split.rest.sql, split.rest.parameters], ['select * from "books" where "id" > ? order by "id" limit ? offset ?', [3, -1, 10]], 'every row after it')
  t.strictSame(firstBatchOf(query, 20)!.first.parameters, [3, 21], 'another batch size, split again')
  t.equal(firstBatchOf(query.limit(5), 10), undefined, 'a LIMIT of its own')
  t.equal(firstBatchOf(query.limit(5).offset(2), 10), undefined, 'an OFFSET of its own')
})
