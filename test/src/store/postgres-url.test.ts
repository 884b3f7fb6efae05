import t from 'tap'
import { isPostgresUrl, postgresSettings } from '../../../src/store/postgres-url.js'

t.test('postgres:// and postgresql:// name PostgreSQL; a path or another scheme does not', async (t) => {
  for (const url of ['postgres://u@h/db', 'postgresql://u@h/db', 'POSTGRES://h/db']) t.ok(isPostgresUrl(url), url)
  for (const url of ['data/catalogue.sqlite', ':memory:', 'mysql://h/db', '/tmp/postgres://x']) t.notOk(isPostgresUrl(url), url)
})

t.test('no schema: the URL as it is, the server\'s default search_path', async (t) => {
  t.strictSame(postgresSettings('postgres://postgres@127.0.0.1:5432/test'), {
    connectionString: 'postgres://postgres@127.0.0.1:5432/test',
    options: undefined,
    schema: undefined
  })
})

t.test('?schema=name is taken out of the URL and becomes the search_path', async (t) => {
  t.strictSame(postgresSettings('postgres://u:p%40ss@db.example:5432/app?sslmode=require&schema=tenant_1'), {
    connectionString: 'postgres://u:p%40ss@db.example:5432/app?sslmode=require',
    options: '-c search_path=tenant_1',
    schema: 'tenant_1'
  })
})

t.test('a search_path in the URL\'s own options is honoured, its first schema created', async (t) => {
  const settings = postgresSettings('postgresql://h/app?options=-c%20search_path%3Dreports,public%20-c%20statement_timeout%3D5000')
  t.strictSame(settings, {
    connectionString: 'postgresql://h/app',
    options: '-c search_path=reports,public -c statement_timeout=5000',
    schema: 'reports'
  })
  t.equal(postgresSettings('postgres://h/app?options=--search_path%3Dreports').schema, 'reports')
})

t.test('options and ?schema together: both kept, the schema\'s search_path last, so it wins', async (t) => {
  t.strictSame(postgresSettings('postgres://h/app?options=-c%20statement_timeout%3D5000&schema=s'), {
    connectionString: 'postgres://h/app',
    options: '-c statement_timeout=5000 -c search_path=s',
    schema: 's'
  })
})

t.test('a search_path that is not a plain name is passed on, and nothing is created', async (t) => {
  const settings = postgresSettings('postgres://h/app?options=-c%20search_path%3D%22%24user%22,public')
  t.equal(settings.schema, undefined)
  t.equal(settings.options, '-c search_path="$user",public')
  t.equal(postgresSettings('postgres://h/app?options=-c%20work_mem%3D64MB').schema, undefined, 'options without a search_path')
})

t.test('a schema that is not a plain lower-case name is refused, saying what a name may be', async (t) => {
  for (const schema of ['Tenant', '1st', 'a-b', 'x;drop', '', 'a'.repeat(64)]) {
    t.throws(() => postgresSettings(`postgres://h/app?schema=${encodeURIComponent(schema)}`), { name: 'RangeError', message: /^schema must be a lower-case name .*got "/ }, JSON.stringify(schema))
  }
  t.equal(postgresSettings(`postgres://h/app?schema=${'a'.repeat(63)}`).schema, 'a'.repeat(63))
})

t.test('something that is not a URL is refused', async (t) => {
  t.throws(() => postgresSettings('postgres://[bad'), { name: 'RangeError', message: /not a URL/ })
})
