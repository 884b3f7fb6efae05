// A statement compiled once: each run has the values in the slots' places and nothing else moved,
// a slot used twice takes its value twice, and a slot the statement does not use is refused.
import { Kysely, SqliteDialect, sql } from 'kysely'
import SQLite from 'better-sqlite3'
import t from 'tap'
import { template } from '../../../src/sources/template.js'

const connection = new SQLite(':memory:')
const db = new Kysely<{ entries: { id: number, memo: string } }>({ dialect: new SqliteDialect({ database: connection }) })
t.teardown(() => db.destroy())
await db.schema.createTable('entries').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('memo', 'text').execute()
await db.insertInto('entries').values(Array.from({ length: 9 }, (_, i) => ({ id: i + 1, memo: i % 2 === 0 ? 'odd' : 'even' }))).execute()

t.test('each run: the values in the slots, the query\'s own values kept, the rows as if built anew', async (t) => {
  const page = template(2, (limit, offset) => db.selectFrom('entries').select('id').where('memo', '=', 'odd').orderBy('id').limit(limit).offset(offset))
  const first = page(2, 1)
  const second = page(3, 0)
  t.strictSame(first.parameters, ['odd', 2, 1])
  t.strictSame(second.parameters, ['odd', 3, 0])
  t.equal(first.sql, second.sql, 'one SQL text for every run')
  t.not(first.queryId, second.queryId, 'a query id per run')
  t.strictSame((await db.executeQuery(first)).rows, [{ id: 3 }, { id: 5 }])
  const built = db.selectFrom('entries').select('id').where('memo', '=', 'odd').orderBy('id').limit(3).offset(0).compile()
  t.strictSame(second.parameters, built.parameters, 'the parameters kysely would have compiled')
  t.equal(second.sql, built.sql, 'and the SQL')
})

t.test('a value equal to a slot\'s run value elsewhere in the query is not touched; a slot used twice gets its value twice', async (t) => {
  const between = template(1, (bound) => db.selectFrom('entries').select('id').where('id', '>=', bound).where('id', '<', sql<number>`${bound} + ${2}`).orderBy('id'))
  const run = between(2)
  t.strictSame(run.parameters, [2, 2, 2])
  t.strictSame((await db.executeQuery(run)).rows, [{ id: 2 }, { id: 3 }])
  t.strictSame((await db.executeQuery(between(8))).rows, [{ id: 8 }, { id: 9 }])
})

t.test('a slot the statement leaves out is a mistake, said at once', async (t) => {
  t.throws(() => template(2, (limit) => db.selectFrom('entries').select('id').limit(limit)), { name: 'TypeError', message: /^Slot 1 is not in the statement: select "id" from "entries" limit \?$/ })
})
