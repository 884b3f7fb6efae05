// What the catalogue reads of a database's own tables, on SQLite and PostgreSQL alike: each
// column's kind and nullability, the keys, and the values a check or an enum admits.
import t from 'tap'
import { sql, type Kysely } from 'kysely'
import { namesOneRow, readCatalogue, type Catalogue } from '../../../src/store/catalogue/index.js'
import { checkedValues } from '../../../src/store/catalogue/checks.js'
import { openStore } from '../../../src/store/index.js'
import { everyKindOnPostgres, SQLITE_SCHEMA } from '../../fixtures/every-kind.js'
import { needs } from '../../helpers/services.js'

async function run (db: Kysely<any>, statements: string): Promise<void> {
  await sql.raw(statements).execute(db)
}

const kindsOf = (catalogue: Catalogue, table: string): Record<string, string> =>
  Object.fromEntries(catalogue.get(table)!.columns.map((column) => [column.name, `${column.kind}${column.nullable ? '?' : ''}`]))

t.test('SQLite', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(async () => { await store.close() })
  for (const statement of SQLITE_SCHEMA.split(';').filter((s) => s.trim() !== '')) await run(store.db, statement)
  const catalogue = await readCatalogue(store)
  t.strictSame([...catalogue.keys()], ['active_items', 'items', 'loose', 'memberships', 'tags'])
  t.strictSame(kindsOf(catalogue, 'items'), {
    id: 'integer',
    code: 'text',
    small_int: 'integer',
    big_int: 'integer?',
    price: 'numeric',
    ratio: 'real?',
    weight: 'real?',
    title: 'text',
    notes: 'text?',
    active: 'boolean',
    born: 'date?',
    created_at: 'timestamp',
    updated_at: 'timestamp?',
    status: 'text',
    priority: 'integer?',
    payload: 'json?',
    picture: 'bytes?',
    email: 'text?',
    password_hash: 'text?'
  })
  const items = catalogue.get('items')!
  t.strictSame(items.primaryKey, ['id'])
  t.strictSame(items.unique, [['id'], ['code']])
  t.strictSame(items.columns.find((c) => c.name === 'status')?.values, ['draft', 'active', 'archived'])
  t.strictSame(items.columns.find((c) => c.name === 'priority')?.values, [1, 2, 3])
  t.equal(items.columns.find((c) => c.name === 'price')?.type, 'numeric(10, 2)')
  const view = catalogue.get('active_items')!
  t.ok(view.view)
  t.strictSame(kindsOf(catalogue, 'active_items'), { id: 'integer?', code: 'text?', title: 'text?', shout: 'other?' }, 'a view promises no NOT NULL, and an expression has no type')
  t.strictSame(view.unique, [])
  t.strictSame(catalogue.get('memberships')!.primaryKey, ['user_id', 'group_id'])
  t.strictSame(kindsOf(catalogue, 'memberships'), { user_id: 'integer', group_id: 'integer', role: 'text' })
  t.strictSame(catalogue.get('tags')!.unique, [['name']])
  t.strictSame(kindsOf(catalogue, 'loose'), { a: 'other?', b: 'other?' })
  t.ok(namesOneRow(catalogue.get('memberships')!, ['group_id', 'user_id']))
  t.notOk(namesOneRow(catalogue.get('memberships')!, ['user_id']))
  t.notOk(namesOneRow(view, ['id']))
})

t.test('SQLite: a text primary key may hold NULL unless declared NOT NULL; partial and expression indexes name no row', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(async () => { await store.close() })
  await run(store.db, 'create table a (k text primary key, n integer, m integer)')
  await run(store.db, 'create unique index a_n on a (n) where n > 0')
  await run(store.db, 'create unique index a_m on a (abs(m))')
  const table = (await readCatalogue(store)).get('a')!
  t.strictSame(kindsOf(await readCatalogue(store), 'a'), { k: 'text?', n: 'integer?', m: 'integer?' })
  t.strictSame(table.unique, [['k']])
})

t.test('PostgreSQL', async (t) => {
  if (!await needs(t, 'PostgreSQL')) return
  const { store } = await everyKindOnPostgres(t, 'catalogue_test')
  await run(store.db, 'create unique index tags_shout on tags (upper(colour))')
  const catalogue = await readCatalogue(store)
  t.strictSame([...catalogue.keys()].sort(), ['active_items', 'items', 'memberships', 'tags'])
  t.strictSame(kindsOf(catalogue, 'items'), {
    id: 'integer',
    code: 'text',
    small_int: 'integer',
    big_int: 'integer?',
    price: 'decimal',
    ratio: 'real?',
    weight: 'real?',
    title: 'text',
    notes: 'text?',
    active: 'boolean',
    born: 'date?',
    created_at: 'timestamptz',
    updated_at: 'timestamp?',
    status: 'text',
    priority: 'integer?',
    mood: 'text?',
    payload: 'json?',
    picture: 'bytes?',
    email: 'text?',
    password_hash: 'text?',
    uid: 'text?'
  })
  const items = catalogue.get('items')!
  t.strictSame(items.primaryKey, ['id'])
  t.strictSame(items.unique, [['id'], ['code']])
  t.strictSame(items.columns.find((c) => c.name === 'status')?.values, ['draft', 'active', 'archived'])
  t.strictSame(items.columns.find((c) => c.name === 'priority')?.values, [1, 2, 3])
  t.strictSame(items.columns.find((c) => c.name === 'mood')?.values, ['happy', 'sad', 'fine'])
  t.equal(items.columns.find((c) => c.name === 'mood')?.type, 'mood')
  t.ok(catalogue.get('active_items')!.view)
  t.strictSame(kindsOf(catalogue, 'active_items'), { id: 'integer?', code: 'text?', title: 'text?', shout: 'text?' })
  t.strictSame(catalogue.get('memberships')!.primaryKey, ['user_id', 'group_id'])
  t.strictSame(catalogue.get('tags')!.unique, [['name']], 'an index on an expression names no columns')
  t.strictSame([...(await readCatalogue(store, 'pg_catalog')).keys()].includes('items'), false, 'another schema named: its own tables')
})

t.test('the check lists read, in both dialects', async (t) => {
  t.strictSame([...checkedValues('create table x (a text check ("A b" in (\'it\'\'s\', \'x\')), b check (b IN (1, -2.5)), c check ([c] in (d)), e check (e in ()))')], [['a b', ["it's", 'x']], ['b', [1, -2.5]]])
  t.strictSame([...checkedValues("CHECK (((kind)::text = ANY ((ARRAY['a'::character varying, 'b'::character varying])::text[])))")], [['kind', ['a', 'b']]])
  t.strictSame([...checkedValues('CHECK ((n = ANY (ARRAY[1, 2])))')], [['n', [1, 2]]])
  t.strictSame([...checkedValues('CHECK ((n > 0))')], [])
  t.strictSame([...checkedValues('create table y (`q` text check (`q` in (\'a\')))')], [['q', ['a']]])
})
