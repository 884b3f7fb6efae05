// A declaration file's fields against their columns, on SQLite and PostgreSQL: a field reads only a
// column whose values are of its type and whose NULLs it admits, unless its mapping declares the
// conversion; timestamps are read as their declared storage says; an order must name one row.
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { compileDeclarations } from '../../../src/config-file/compiler.js'
import { DeclarationFileError } from '../../../src/config-file/errors.js'
import { loadDeclarationFile } from '../../../src/config-file/loader.js'
import { compileMount, type Mount } from '../../../src/core/index.js'
import { openStore, type Store } from '../../../src/store/index.js'
import { everyKindOnPostgres, SQLITE_ROWS, SQLITE_SCHEMA } from '../../fixtures/every-kind.js'
import { needs } from '../../helpers/services.js'
import { plainText } from '../../helpers/plain-body.js'

const log = { warn: () => {} }
const list = (extra: object = {}): object => ({ kind: 'list', name: 'listItems', url: '/items', summary: 'Items', record: 'Item', source: 'items', permissions: ['unrestricted'], ...extra })

/** The fields of the fixture's items both stores read alike. */
const COMMON = {
  id: { type: 'integer', handle: true },
  code: { type: 'string' },
  small_int: { type: 'integer' },
  big_int: { type: 'integer', nullable: true },
  ratio: { type: 'number', nullable: true },
  weight: { type: 'number', nullable: true },
  title: { type: 'string', label: true },
  notes: { type: 'string', nullable: true },
  active: { type: 'boolean' },
  born: { type: 'date', nullable: true },
  created_at: { type: 'date-time', timestamp: {} },
  updated_at: { type: 'date-time', nullable: true },
  status: { choices: { draft: 'Draft', active: 'Active', archived: 'Archived' } },
  priority: { choices: [{ value: 1, display: 'High' }, { value: 2, display: 'Normal' }, { value: 3, display: 'Low' }], nullable: true },
  email: { type: 'string', nullable: true, hidden: true },
  password_hash: { type: 'string', nullable: true, hidden: true }
}

function fileOf (declarations: object): ReturnType<typeof loadDeclarationFile> {
  return loadDeclarationFile('g.json', JSON.stringify(declarations, null, 2))
}

function suite (t: Test, store: Store<any>, kind: 'sqlite' | 'postgres'): void {
  const price = kind === 'sqlite' ? { type: 'number' } : { type: 'decimal' }
  const payload = { type: 'object', nullable: true, fields: { a: { type: 'integer' } } }
  const item = (fields: object = {}): object => ({ fields: { ...COMMON, price, payload, ...fields } })
  const payloadMapping = kind === 'sqlite' ? { payload: { json: true } } : {}

  async function refused (records: object, source: object = {}, mounts: object[] = [list()]): Promise<string[]> {
    try {
      const compiled = await compileDeclarations(fileOf({ records, sources: { items: { table: 'items', orderBy: 'id', fields: payloadMapping, ...source } }, mounts }), { store, env: {}, log })
      await compiled.close()
    } catch (error) {
      if (error instanceof DeclarationFileError) return error.lines.map((line) => line.replace(/^g\.json:\d+:\d+: /, ''))
      throw error
    }
    throw new Error('the file was accepted')
  }

  async function served (records: object, source: object = {}): Promise<{ plain: unknown[], agent: any }> {
    const compiled = await compileDeclarations(fileOf({ records, sources: { items: { table: 'items', orderBy: 'id', fields: payloadMapping, ...source } }, mounts: [list()] }), { store, env: {}, log })
    t.teardown(compiled.close)
    const resource = compileMount(compiled.mounts[0].mount as Mount, { timeZone: 'Europe/Paris' })
    const plain = await resource.serve({ audience: 'plain', query: {}, params: {} })
    const text = await plainText(plain.body)
    const agent = (await resource.serve({ audience: 'agent', query: {}, params: {} })).body
    return { plain: JSON.parse(text), agent }
  }

  t.test('every kind of column, read by the field of its type, is served as stored', async (t) => {
    const { plain, agent } = await served({ Item: item() })
    t.match(plain[0], {
      id: 1,
      code: 'A-1',
      small_int: 3,
      big_int: 9007199254740991,
      price: kind === 'sqlite' ? 12.5 : '12.50',
      ratio: 0.25,
      weight: 1.5,
      title: 'First',
      notes: null,
      active: true,
      born: '1990-02-03',
      status: 'active',
      priority: 1,
      payload: { a: 1 },
      email: 'a@example.com'
    })
    t.match(plain[1], { id: 2, big_int: null, price: kind === 'sqlite' ? 7 : '7.00', active: false, born: null, updated_at: null, priority: null, payload: null })
    if (kind === 'sqlite') {
      t.equal((plain[0] as any).created_at, '2026-12-02T15:30:05Z', 'SQLite\'s CURRENT_TIMESTAMP text is UTC')
      t.equal((plain[0] as any).updated_at, '2026-12-02T16:00:00Z')
      t.equal(agent.items[0].created_at, '02 Dec 2026 16:30 +01:00', 'agents see the same instant in TIME_ZONE')
    } else {
      t.match((plain[0] as any).created_at, /^2026-12-02T\d{2}:\d{2}:05\.123456[+-]\d{2}:\d{2}$/, 'a timestamptz keeps its microseconds and its offset')
      t.equal(Date.parse((plain[0] as any).created_at), Date.parse('2026-12-02T15:30:05.123Z'))
      t.equal((plain[0] as any).updated_at, '2026-12-02T16:00:00Z', 'a timestamp without time zone is UTC unless declared otherwise')
      t.equal(agent.items[0].created_at, '02 Dec 2026 16:30 +01:00')
    }
    t.notOk('email' in agent.items[0], 'hidden from agents')
    t.match(agent.items[0], { status: 'Active', priority: 'High' })
  })

  t.test('a timestamp stored as another zone\'s wall time, or with its offset', async (t) => {
    const { plain } = await served({ Item: item() }, { fields: { ...payloadMapping, updated_at: { stored: 'Europe/Paris' } } })
    t.equal((plain[0] as any).updated_at, '2026-12-02T16:00:00+01:00')
    await t.rejects(served({ Item: item() }, { fields: { ...payloadMapping, updated_at: { stored: 'offset' } } }), { code: 'AG_STORED_VALUE_INVALID', message: /^Record Item's field "updated_at" holds a timestamp without its offset/ })
  })

  t.test('a number read as text where the mapping casts it', async (t) => {
    const { plain } = await served({ Item: item({ small_int: { type: 'string' } }) }, { fields: { ...payloadMapping, small_int: { cast: 'text' } } })
    t.equal((plain[0] as any).small_int, '3')
  })

  t.test('a field of another type than its column\'s is refused, naming both', async (t) => {
    const varchar = kind === 'sqlite' ? 'varchar(80)' : 'varchar'
    t.strictSame(await refused({ Item: item({ title: { type: 'integer' }, small_int: { type: 'string' } }) }), [
      `/records/Item/fields/small_int: record Item's field "small_int" is a string, but column "small_int" of table "items" is ${kind === 'sqlite' ? 'INT' : 'int2'} (an integer); declare the field "integer" or "number", or read the column as text with "cast": "text"`,
      `/records/Item/fields/title: record Item's field "title" is an integer, but column "title" of table "items" is ${varchar} (text); declare the field "string" or "date" or "date-time" or "decimal"`
    ])
  })

  t.test('a field not nullable over a column that admits NULL is refused', async (t) => {
    t.strictSame(await refused({ Item: item({ notes: { type: 'string' } }) }), [
      '/records/Item/fields/notes: record Item\'s field "notes" is not nullable, but column "notes" of table "items" admits NULL; declare the field "nullable": true, or make the column NOT NULL'
    ])
    t.strictSame(await refused({ Item: item({ notes: { type: 'string', optional: true } }) }), [
      '/records/Item/fields/notes: record Item\'s field "notes" is not nullable, but column "notes" of table "items" admits NULL; declare the field "nullable": true (or map it with "omitNull": true), or make the column NOT NULL'
    ])
    const { plain } = await served({ Item: item({ notes: { type: 'string', optional: true } }) }, { fields: { ...payloadMapping, notes: { omitNull: true } } })
    t.notOk('notes' in (plain[0] as object))
  })

  t.test('bytes are read by no field', async (t) => {
    t.strictSame(await refused({ Item: item({ picture: { type: 'string', nullable: true } }) }), [
      `/records/Item/fields/picture: record Item's field "picture" is a string, but column "picture" of table "items" is ${kind === 'sqlite' ? 'BLOB' : 'bytea'} (bytes); no field reads bytes`
    ])
  })

  t.test('a cast to text is refused where the text would not be the value stored', async (t) => {
    t.strictSame(await refused({ Item: item({ picture: { type: 'string', nullable: true } }) }, { fields: { ...payloadMapping, picture: { cast: 'text' } } }), [
      '/sources/items/fields/picture: record Item\'s field "picture" casts column "picture" of table "items" to text, but it holds bytes, which the cast would not keep as stored'
    ])
  })

  t.test('conversions declared where they cannot apply are refused', async (t) => {
    const lines = await refused({ Item: item({ code: { type: 'string' }, title: { type: 'string' }, born: { type: 'date-time', nullable: true } }) }, { fields: { ...payloadMapping, code: { stored: 'UTC' }, title: { cast: 'text' }, born: { stored: 'Mars/Olympus' } } })
    t.strictSame(lines, [
      '/sources/items/fields/code: record Item\'s field "code" says how its timestamps are "stored", but it is not a date-time field',
      '/sources/items/fields/born: record Item\'s field "born" is a date-time, but column "born" of table "items" is date (a date); declare the field "string" or "date"'
    ])
    t.strictSame(await refused({ Item: item({ updated_at: { type: 'date-time', nullable: true } }) }, { fields: { ...payloadMapping, updated_at: { stored: 'Mars/Olympus' } } }), [
      '/sources/items/fields/updated_at: record Item\'s field "updated_at" says its timestamps are stored in "Mars/Olympus", which is neither "UTC", "offset" nor an IANA time zone'
    ])
  })

  t.test('an order that two rows may share is refused; one naming a row is served', async (t) => {
    const [line] = await refused({ Item: item() }, { orderBy: 'title' })
    t.equal(line, '/sources/items/orderBy: pages of a list (/mounts/0) must follow an order no two rows share, or rows with equal keys could repeat or go missing from one page to the next; add a column that does as the last key (table "items" has "id", "code")')
    const { plain } = await served({ Item: item() }, { orderBy: ['-title', 'id'] })
    t.strictSame(plain.map((row: any) => row.id), [2, 1])
    const view = { View: { fields: { id: { type: 'integer', nullable: true, handle: true }, title: { type: 'string', nullable: true, label: true } } } }
    const onView = [list({ record: 'View' })]
    t.strictSame(await refused(view, { table: 'active_items', fields: {} }, onView), [
      '/sources/items/orderBy: pages of a list (/mounts/0) must follow an order no two rows share, or rows with equal keys could repeat or go missing from one page to the next; a view publishes no keys: say which of its columns name one row with "unique" (e.g. ["id"]) and order by them, last'
    ])
    const compiled = await compileDeclarations(fileOf({ records: view, sources: { items: { table: 'active_items', orderBy: 'id', unique: ['id'] } }, mounts: onView }), { store, env: {}, log })
    t.equal(compiled.mounts.length, 1)
    await compiled.close()
  })

  t.test('an object over JSON kept as text needs "json"', async (t) => {
    if (kind === 'postgres') {
      const { plain } = await served({ Item: item() }, { fields: { payload: { json: true } } })
      t.strictSame((plain[0] as any).payload, { a: 1 }, 'jsonb is already JSON: "json" changes nothing')
      return
    }
    t.strictSame(await refused({ Item: item() }, { fields: {} }), [
      '/records/Item/fields/payload: record Item\'s field "payload" is an object, but column "payload" of table "items" is json (JSON); map the column with "json": true to read its text as JSON'
    ])
  })
}

t.test('SQLite', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(async () => { await store.close() })
  for (const statement of `${SQLITE_SCHEMA};${SQLITE_ROWS}`.split(';').filter((s) => s.trim() !== '')) await sql.raw(statement).execute(store.db)
  suite(t, store, 'sqlite')

  t.test('a boolean column holding other than 0 or 1 is refused, not guessed', async (t) => {
    await sql.raw('update items set active = 2 where id = 2').execute(store.db)
    t.teardown(async () => { await sql.raw('update items set active = 0 where id = 2').execute(store.db) })
    const compiled = await compileDeclarations(fileOf({ records: { Item: { fields: { id: { type: 'integer' }, active: { type: 'boolean' } } } }, sources: { items: { table: 'items', orderBy: 'id' } }, mounts: [list()] }), { store, env: {}, log })
    t.teardown(compiled.close)
    await t.rejects(compileMount(compiled.mounts[0].mount as Mount, { timeZone: 'UTC' }).serve({ audience: 'agent', query: {}, params: {} }), { code: 'AG_STORED_VALUE_INVALID', message: /field "active" holds a value that is neither 0 nor 1 in a boolean column/ })
  })

  t.test('a field of no one type is not checked; a record of optional fields; a NULL boolean', async (t) => {
    await sql.raw('create table flags (id integer primary key, flag boolean, mixed text)').execute(store.db)
    await sql.raw('insert into flags values (1, null, \'a\'), (2, 1, \'b\')').execute(store.db)
    const records = { Flag: { fields: { id: { type: 'integer', optional: true }, flag: { type: 'boolean', nullable: true, optional: true }, mixed: { choices: [{ value: 'a', display: 'A' }, { value: 1, display: 'One' }], nullable: true, optional: true } } } }
    const compiled = await compileDeclarations(fileOf({ records, sources: { items: { table: 'flags', orderBy: 'id' } }, mounts: [list({ record: 'Flag' })] }), { store, env: {}, log })
    t.teardown(compiled.close)
    const body = await compileMount(compiled.mounts[0].mount as Mount, { timeZone: 'UTC' }).serve({ audience: 'agent', query: {}, params: {} })
    t.match(body.body, { items: [{ id: 1, flag: null, mixed: 'A' }, { id: 2, flag: true }] })
  })

  t.test('columns of no declared type are not checked', async (t) => {
    const compiled = await compileDeclarations(fileOf({ records: { Loose: { fields: { a: { type: 'string', nullable: true }, b: { type: 'integer', nullable: true } } } }, sources: { items: { table: 'loose', orderBy: ['a', 'b'], unique: ['a'] } }, mounts: [list({ record: 'Loose' })] }), { store, env: {}, log }).catch((error: Error) => error)
    t.strictSame((compiled as DeclarationFileError).lines.map((line) => line.replace(/^g\.json:\d+:\d+: /, '')), [
      '/sources/items/orderBy: pages of a list (/mounts/0) must follow an order no two rows share, or rows with equal keys could repeat or go missing from one page to the next; add a column that does as the last key: table "loose" has no primary key nor unique index'
    ], 'their types pass; a table without keys cannot be ordered stably, and "unique" is for views')
  })
})

t.test('PostgreSQL', async (t) => {
  if (!await needs(t, 'PostgreSQL')) return
  const { store } = await everyKindOnPostgres(t, 'columns_test')
  suite(t, store, 'postgres')

  t.test('a bigint a JSON number cannot carry exactly is refused, not rounded', async (t) => {
    await sql.raw('insert into tags values (\'big\', null); create table counters (id bigint primary key); insert into counters values (9007199254740993)').execute(store.db)
    const compiled = await compileDeclarations(fileOf({ records: { Counter: { fields: { id: { type: 'integer' } } } }, sources: { items: { table: 'counters', orderBy: 'id' } }, mounts: [list({ record: 'Counter' })] }), { store, env: {}, log })
    t.teardown(compiled.close)
    await t.rejects(compileMount(compiled.mounts[0].mount as Mount, { timeZone: 'UTC' }).serve({ audience: 'agent', query: {}, params: {} }), { code: 'AG_STORED_VALUE_INVALID', message: /field "id" holds an integer beyond 9007199254740991/ })
  })
})
