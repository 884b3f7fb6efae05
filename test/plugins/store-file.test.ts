// The SQLite file moved away, replaced or made unusable while the app serves it (in WAL mode, as
// served): every data route and readiness answer a 503 with Retry-After while the path names no
// usable file, though a connection still holds the old one; the same app serves again, without a
// restart, once the file is back, or a restored copy with the same tables is put in its place.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setImmediate as turn } from 'node:timers/promises'
import SQLite from 'better-sqlite3'
import t, { type Test } from 'tap'
import { STORE_UNAVAILABLE_DETAIL } from '../../src/core/problem.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const dir = t.testdir()
const file = join(dir, 'catalogue.sqlite')
const notices: string[] = []
const { app, routes } = await buildApp(t, { databaseUrl: file })
// Told to the log as the app's store plugin tells it; collected here from the store's own hook.
app.log.warn = ((_detail: unknown, message: string) => { if (message.startsWith('The SQLite file')) notices.push(message) }) as typeof app.log.warn

/** Every mounted route, parameters filled in, as each audience asks for it; and readiness. */
const requests = [
  ...routes
    .filter((route) => route.method === 'GET' && route.config?.variants !== undefined)
    .flatMap((route) => {
      const url = route.url.replace(/:\w+/g, '1')
      return [{ url, headers: AUTH as Record<string, string> }, { url, headers: AGENT as Record<string, string> }]
    }),
  { url: '/readyz', headers: {} }
]

/**
 * The store looks at its path once per turn of the event loop (src/store/sqlite-file.ts): each
 * round of requests starts in a later turn than the change before it, as a request from outside does.
 */
async function statuses (): Promise<Array<{ what: string, status: number, retryAfter: unknown, body: string }>> {
  await turn()
  return await Promise.all(requests.map(async ({ url, headers }) => {
    const res = await app.inject({ url, headers })
    return { what: `${url} ${headers === AGENT ? 'agent' : 'plain'}`, status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.body }
  }))
}

async function assertUnavailable (t: Test): Promise<void> {
  for (const answer of await statuses()) {
    t.equal(answer.status, 503, answer.what)
    t.equal(answer.retryAfter, '5', `${answer.what}: Retry-After`)
    t.match(JSON.parse(answer.body), { type: 'urn:audience-gateway:problem:store-unavailable', detail: answer.what.startsWith('/readyz') ? String : STORE_UNAVAILABLE_DETAIL }, answer.what)
    t.notMatch(answer.body, /sqlite|catalogue|inode/i, `${answer.what}: nothing of the store's insides`)
  }
}

async function assertServed (t: Test): Promise<void> {
  for (const answer of await statuses()) t.equal(answer.status, 200, answer.what)
}

async function agentTotal (): Promise<number> {
  await turn()
  return (await app.inject({ url: '/books?limit=1', headers: AGENT })).json().totalPages as number
}

const FILES = ['', '-wal', '-shm']

function moveAway (to: string): void {
  for (const suffix of FILES) if (existsSync(file + suffix)) renameSync(file + suffix, to + suffix)
}

function moveBack (from: string): void {
  for (const suffix of FILES) if (existsSync(from + suffix)) renameSync(from + suffix, file + suffix)
}

t.test('served from the file at first, and the data routes are the expected ones', async (t) => {
  t.ok(requests.some((request) => request.url === '/books/1'))
  t.ok(requests.some((request) => request.url === '/ledger'))
  await assertServed(t)
  t.equal(await agentTotal(), 3)
})

t.test('moved away with its -wal and -shm: every data route and readiness answer 503; moved back: 200', async (t) => {
  const away = join(dir, 'moved.sqlite')
  moveAway(away)
  await assertUnavailable(t)
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'alive all along')
  t.match(notices, [/catalogue\.sqlite is gone: data routes and readiness answer 503 until it is back/], 'told once, not once per request')
  moveBack(away)
  await assertServed(t)
  t.match(notices.at(-1), /is back: serving it again/)
  t.equal(notices.length, 2)
})

t.test('a path that names a directory, or a file that is no database, is unavailable until a usable file is back', async (t) => {
  const away = join(dir, 'set-aside.sqlite')
  moveAway(away)
  t.teardown(() => { if (!existsSync(file)) moveBack(away) })
  for (const stand of [
    () => { mkdirSync(file) },
    () => { writeFileSync(file, 'not a database, though a file', 'utf8') },
    () => { writeFileSync(file, Buffer.alloc(0)) }
  ]) {
    stand()
    await assertUnavailable(t)
    if (statSync(file).isFile()) t.equal(readFileSync(file, 'utf8').length <= 30, true, 'a file refused is not written to')
    rmSync(file, { force: true, recursive: true })
    for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true })
  }
  moveBack(away)
  await assertServed(t)
})

t.test('a restored copy with the same tables put in its place is served from then on, its own rows counted', async (t) => {
  const copy = join(dir, 'restored.sqlite')
  const source = new SQLite(file, { readonly: true })
  await source.backup(copy)
  source.close()
  const restored = new SQLite(copy)
  restored.prepare('insert into books (id, title, status, price, published_on, author_id) values (4, ?, ?, ?, ?, 1)').run('A restored book', 'published', '9.00', '2020-02-02')
  restored.close()
  t.equal(await agentTotal(), 3, 'the total is counted (and remembered) before')
  moveAway(join(dir, 'old.sqlite'))
  renameSync(copy, file)
  t.equal(await agentTotal(), 4, 'the restored file\'s rows, not a total remembered from the old one')
  t.match(notices.at(-1), /another file than the one opened, with the same tables: serving it from now on/)
  const plain = await app.inject({ url: '/books', headers: AUTH })
  t.equal(plain.json().length, 4, 'a whole list reads the restored file too')
  await assertServed(t)
})

t.test('a file with other tables put in its place is unavailable, and is not served', async (t) => {
  moveAway(join(dir, 'kept.sqlite'))
  const other = new SQLite(file)
  other.exec('create table notes (id integer primary key, body text)')
  other.close()
  await assertUnavailable(t)
  t.match(notices.at(-1), /is another file, not a database with the tables of the one opened/)
  for (const suffix of FILES) rmSync(file + suffix, { force: true })
  moveBack(join(dir, 'kept.sqlite'))
  await assertServed(t)
})
