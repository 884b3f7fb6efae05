// `audience-gateway init --from-db`, in process, on SQLite and PostgreSQL: a schema with every kind
// of column drafted into a file that `check` accepts and that, served unchanged, gives a plain client
// every row exactly as stored and an agent the projected envelope; then the options and refusals.
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { EXIT, run } from '../../../src/cli.js'
import { initAsked, shownUrl } from '../../../src/init/command.js'
import { draftFromCatalogue } from '../../../src/init/from-db.js'
import { openStore } from '../../../src/store/index.js'
import { readCatalogue } from '../../../src/store/catalogue/index.js'
import { AUTH } from '../../helpers/app.js'
import { buildDeclaredApp } from '../../helpers/declared-app.js'
import { needs } from '../../helpers/services.js'
import { everyKindOnPostgres, SQLITE_ROWS, SQLITE_SCHEMA } from '../../fixtures/every-kind.js'

const dir = await mkdtemp(join(tmpdir(), 'gateway-init-db-'))
t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })

async function command (argv: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | undefined, stdout: string, stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await run(argv, { stdout: { write: (text: string) => { stdout += text } }, stderr: { write: (text: string) => { stderr += text } }, env: { TIME_ZONE: 'Europe/Paris', ...env } })
  return { code, stdout, stderr }
}

/** Drafts `url` into `out`, checks it, serves it unchanged; returns the items as both audiences get them. */
async function draftedAndServed (t: Test, url: string, out: string): Promise<{ text: string, plain: any[], agent: any, one: any }> {
  const drafted = await command(['init', '--from-db', url, '--out', out])
  t.equal(drafted.code, EXIT.ok, drafted.stderr)
  t.match(drafted.stderr, /Drafted .* 4 records, 4 sources, 8 mounts/)
  const checked = await command(['check', out], { DATABASE_URL: url })
  t.equal(checked.code, EXIT.ok, checked.stdout + checked.stderr)
  const app = await buildDeclaredApp(t, out, { databaseUrl: url, setUp: undefined, timeZone: 'Europe/Paris' })
  const plain = (await app.inject({ url: '/items', headers: AUTH })).json()
  const agent = (await app.inject({ url: '/items', headers: { ...AUTH, 'x-audience': 'agent' } })).json()
  const one = (await app.inject({ url: '/memberships/1/2', headers: { ...AUTH, 'x-audience': 'agent' } })).json()
  t.strictSame((await app.inject({ url: '/tags', headers: AUTH })).json(), [{ name: 'blank', colour: null }, { name: 'red', colour: 'FF0000' }], 'ordered by the unique key')
  return { text: await readFile(out, 'utf8'), plain, agent, one }
}

t.test('SQLite: drafted, checked and served as stored', async (t) => {
  const file = join(dir, 'kinds.sqlite')
  const db = new Database(file)
  db.exec(SQLITE_SCHEMA)
  db.exec(SQLITE_ROWS)
  db.close()
  const { text, plain, agent, one } = await draftedAndServed(t, file, join(dir, 'sqlite.yaml'))
  t.strictSame(plain, [
    { id: 1, code: 'A-1', small_int: 3, big_int: 9007199254740991, price: 12.5, ratio: 0.25, weight: 1.5, title: 'First', notes: null, active: true, born: '1990-02-03', created_at: '2026-12-02T15:30:05Z', updated_at: '2026-12-02T16:00:00Z', status: 'active', priority: 1, email: 'a@example.com', password_hash: 'x' },
    { id: 2, code: 'B-2', small_int: -1, big_int: null, price: 7, ratio: null, weight: null, title: 'Second', notes: 'a note', active: false, born: null, created_at: '2026-06-30T23:59:59Z', updated_at: null, status: 'draft', priority: null, email: null, password_hash: 'y' }
  ])
  t.match(agent.items[0], { id: 1, title: 'First', status: 'Active', priority: '1', created_at: '02 Dec 2026 16:30 +01:00' })
  t.notOk('email' in agent.items[0] || 'password_hash' in agent.items[0], 'what looks personal is hidden from agents')
  t.match(one, { user_id: 1, group_id: 2, role: 'member' })
  t.match(text, /# column "picture" \(BLOB\) left out: it holds bytes/)
  t.match(text, /# column "payload" \(json\) left out/)
  t.match(text, /# not drafted: table "loose" has no primary key nor unique index/)
  t.match(text, /# hidden guessed: "email" looks secret or personal/)
  t.match(text, /# order guessed: a view publishes no keys; guessed that id names one row/)
  t.notMatch(text, /&a\d|\*a\d/, 'no YAML aliases: every value written where it is')
})

t.test('PostgreSQL: drafted, checked and served as stored', async (t) => {
  if (!await needs(t, 'PostgreSQL')) return
  const { url, schema } = await everyKindOnPostgres(t, 'init_db_test')
  const { text, plain, agent } = await draftedAndServed(t, url, join(dir, 'postgres.yaml'))
  t.match(plain[0], { id: 1, big_int: 9007199254740991, price: '12.50', active: true, born: '1990-02-03', updated_at: '2026-12-02T16:00:00Z', status: 'active', mood: 'happy', uid: '6f1c2f9e-8d43-4a53-9d1f-0c3c0a3e1e01' })
  t.equal(Date.parse(plain[0].created_at), Date.parse('2026-12-02T15:30:05.123Z'))
  t.match(plain[0].created_at, /\.123456/, 'microseconds kept')
  t.match(plain[1], { price: '7.00', mood: null, born: null })
  t.match(agent.items[0], { mood: 'Happy', status: 'Active', created_at: '02 Dec 2026 16:30 +01:00' })
  t.match(text, /mood: \{ choices: \{ happy: Happy, sad: Sad, fine: Fine \}, nullable: true \}/)
  t.match(text, /price: \{ type: decimal \}/)

  t.test('--schema and --tables', async (t) => {
    const out = join(dir, 'tags.yaml')
    const drafted = await command(['init', '--from-db', url.replace(/\?.*$/, ''), '--schema', schema, '--tables', 'tags, items', '--out', out])
    t.equal(drafted.code, EXIT.ok, drafted.stderr)
    const drafts = await readFile(out, 'utf8')
    t.match(drafts, new RegExp(`# read from schema "${schema}"`))
    // The next steps it prints are the ones that work: the URL names the schema the draft was read from.
    const next = /\n {2}DATABASE_URL='([^']+)' audience-gateway check /.exec(drafted.stderr)
    t.equal(next?.[1], `${url.replace(/\?.*$/, '')}?schema=${schema}`, 'quoted, as a shell would read a ? otherwise')
    t.equal((await command(['check', out], { DATABASE_URL: next?.[1] ?? '' })).code, EXIT.ok)
    t.ok(drafts.indexOf('Tag:') < drafts.indexOf('Item:') && !drafts.includes('Membership'), 'only the tables named, in their order')
  })
})

t.test('refusals, and what is never done', async (t) => {
  const missing = join(dir, 'nope', 'missing.sqlite')
  const refused = await command(['init', '--from-db', missing, '--out', join(dir, 'x.yaml')])
  t.equal(refused.code, EXIT.invalid)
  t.equal(refused.stderr, `Cannot draft: ${missing} names no SQLite file: the draft is made from an existing database\n`)
  t.notOk(existsSync(join(dir, 'nope')), 'no database, nor its directory, is created')
  const file = join(dir, 'kinds.sqlite')
  const unknown = await command(['init', '--from-db', file, '--tables', 'items,chapters', '--out', join(dir, 'x.yaml')])
  t.equal(unknown.code, EXIT.invalid)
  t.match(unknown.stderr, /has no table or view "chapters"; it has: active_items, items, loose, memberships, tags/)
  const usage = await command(['init', '--from-openapi', 'x.json', '--tables', 'a'])
  t.equal(usage.code, EXIT.usage)
  t.match(usage.stderr, /--tables is for --from-db only/)
  t.match((await command(['init', '--from-openapi', 'x.json', '--tables', 'a', '--schema', 'b'])).stderr, /--tables and --schema are for --from-db only/)
  const sqlite = await command(['init', '--from-db', join(dir, 'kinds.sqlite'), '--schema', 'main', '--tables', 'tags', '--out', '-'])
  t.match(sqlite.stderr, new RegExp(`\\n {2}DATABASE_URL=${join(dir, 'kinds.sqlite').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} audience-gateway check FILE\\n`), 'a SQLite file has no schema to name')
  const unreachable = await command(['init', '--from-db', 'postgres://someone:hunter2@127.0.0.1:1/none', '--out', join(dir, 'x.yaml')])
  t.equal(unreachable.code, EXIT.invalid)
  t.notMatch(unreachable.stderr, /hunter2/, 'a password is never shown')
  t.match(unreachable.stderr, /^Cannot draft: postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none cannot be read: /)
  t.match(initAsked({ 'from-db': 'shop.sqlite' }), { mode: 'from-db', input: 'shop.sqlite', out: 'gateway.yaml', force: false }, 'the draft goes to gateway.yaml unless --out says otherwise')
  t.equal(shownUrl('postgres://a@b/c'), 'postgres://a@b/c')
  t.equal(shownUrl('data/shop.sqlite'), 'data/shop.sqlite')
  t.equal(shownUrl('https://reader:p%40ss@api.example.com/openapi.json'), 'https://reader:***@api.example.com/openapi.json')
})

t.test('a database with nothing to serve says so', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(async () => { await store.close() })
  await sql.raw('create table bare (a, b)').execute(store.db)
  await sql.raw('create table blobs (id integer primary key, data blob)').execute(store.db)
  await sql.raw('create table untyped (id primary key)').execute(store.db)
  await sql.raw('create table halfkey (id primary key, name text)').execute(store.db)
  const draft = draftFromCatalogue(await readCatalogue(store), 'sqlite')
  t.strictSame(draft.declarations, { records: { Blob: { fields: { id: { type: 'integer', handle: true } } } }, sources: { blobs: { table: 'blobs', orderBy: 'id' } }, mounts: draft.declarations.mounts })
  t.match(draft.notes.map(({ note }) => note), [/not drafted: table "bare"/, /column "data" \(BLOB\) left out/, /handle guessed/, /no label guessed/, /order guessed/, /open to every caller/, /column "id" \(no type\) left out/, /label guessed: "name"/, /not drafted: the key of "halfkey" \(id\) is left out of its fields/, /column "id" \(no type\) left out: it says nothing of its values by its type/, /not drafted: table "untyped" has no column the draft can declare/])
  const empty = draftFromCatalogue(new Map(), 'sqlite')
  t.strictSame(empty.notes, [{ pointer: '', note: 'nothing could be drafted to serve: see the notes above.' }])
  t.throws(() => draftFromCatalogue(new Map(), 'sqlite', { tables: ['books'] }), { name: 'DraftError', message: 'has no table or view "books"; it has: none' })
})

t.test('names and keys: a row named from its table, each key column a path parameter of its type', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(async () => { await store.close() })
  for (const table of ['categories', 'boxes', 'glass', 'status']) await sql.raw(`create table ${table} (id integer primary key, name text)`).execute(store.db)
  await sql.raw('create table measures (at real primary key)').execute(store.db)
  await sql.raw('create view totals as select count(*) as n from boxes').execute(store.db)
  const draft = draftFromCatalogue(await readCatalogue(store), 'sqlite')
  t.strictSame(Object.keys(draft.declarations.records), ['Box', 'Category', 'Glass', 'Measure', 'Status'])
  t.strictSame(draft.declarations.mounts.filter((mount) => mount.kind === 'retrieve').map((mount) => [mount.url, (mount as { params: object }).params]), [
    ['/boxes/:id', { id: { type: 'integer' } }],
    ['/categories/:id', { id: { type: 'integer' } }],
    ['/glass/:id', { id: { type: 'integer' } }],
    ['/measures/:at', { at: { type: 'number' } }],
    ['/status/:id', { id: { type: 'integer' } }]
  ])
  t.ok(draft.notes.some(({ note }) => note.startsWith('not drafted: view "totals" has no primary key nor unique index')), 'a view without an id column says so')
})

t.test('a file that is no database cannot be read, in one line', async (t) => {
  const file = join(dir, 'not-a-database.sqlite')
  await writeFile(file, 'hello, I am text\n'.repeat(100))
  const refused = await command(['init', '--from-db', file, '--out', join(dir, 'x.yaml')])
  t.equal(refused.code, EXIT.invalid)
  t.match(refused.stderr, /^Cannot draft: .*not-a-database\.sqlite cannot be read: file is not a database\n$/)
})
