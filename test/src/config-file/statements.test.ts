// A file's statement: each `:name` bound as a parameter, and nothing else taken for one: not a
// colon inside a quoted string or identifier, a comment or a `::` cast.
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely'
import SQLite from 'better-sqlite3'
import t from 'tap'
import { compileStatement } from '../../../src/config-file/statements.js'

const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) })
t.teardown(async () => { await db.destroy() })

/** The SQL and parameters `text` compiles to, with `values` bound. */
function compiled (text: string, values: Record<string, unknown> = {}): Pick<CompiledQuery, 'sql' | 'parameters'> {
  const { sql, parameters } = compileStatement(text).bind(values).compile(db)
  return { sql, parameters }
}

t.test('each :name is a parameter, named once however often it is used', async (t) => {
  const statement = compileStatement('update t set a = :a, b = :b where id = :id and a <> :a')
  t.strictSame(statement.names, ['a', 'b', 'id'])
  t.strictSame(compiled('update t set a = :a where id = :id', { a: 'x\'; drop table t; --', id: 2 }), { sql: 'update t set a = ? where id = ?', parameters: ['x\'; drop table t; --', 2] })
})

t.test('quoted strings and identifiers, comments and casts are left as they are', async (t) => {
  const text = 'select \'it\'\'s :a\', "col:b", x::int /* :c */ from t -- :d'
  t.strictSame(compileStatement(text).names, [])
  t.equal(compiled(text).sql, text)
  t.strictSame(compileStatement('select 1 -- :a\nwhere x = :x').names, ['x'], 'a line comment ends with its line')
  t.strictSame(compileStatement('select \'unclosed :a').names, [], 'an unclosed string runs to the end')
  t.strictSame(compileStatement('select /* unclosed :a').names, [], 'so does an unclosed comment')
  t.strictSame(compileStatement('select :').names, [], 'a colon alone is text')
})

t.test('a value left out is bound as NULL', async (t) => {
  t.strictSame(compiled('select :a', {}).parameters, [null])
})
