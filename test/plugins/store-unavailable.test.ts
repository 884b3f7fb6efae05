// The store out of reach: every data route and readiness answer a 503 problem that says nothing
// about the store's insides, the process stays up, and the same app answers again once it is back.
import { openSync, readSync, writeSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import { setImmediate as turn } from 'node:timers/promises'
import SQLite from 'better-sqlite3'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { STORE_UNAVAILABLE_DETAIL } from '../../src/core/problem.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const file = join(t.testdir(), 'catalogue.sqlite')
// Whole lists' readers wait for a lock as long as for a slot: briefly here, as the timeout below.
const { app, routes } = await buildApp(t, { databaseUrl: file, acquireTimeoutMs: 50 })
// WAL, as served, keeps readers out of reach of both faults: a WAL connection holds a shared lock
// for its whole life (no one else gets an exclusive one) and reads its cached pages without looking
// at the file. In rollback mode each read takes the lock and checks the file, so both faults reach
// it, through the same errors a WAL store gives when its file or its disk fails. A short busy
// timeout keeps a locked read from waiting the served 5 s.
await sql`pragma journal_mode = delete`.execute(app.store.db)
await sql`pragma busy_timeout = 50`.execute(app.store.db)

/** Every mounted route (those with variants), its parameters filled in, as each audience asks for it. */
const requests = routes
  .filter((route) => route.method === 'GET' && route.config?.variants !== undefined)
  .flatMap((route) => {
    const url = route.url.replace(/:\w+/g, '1')
    return [{ url, headers: AUTH }, { url, headers: AGENT }]
  })

async function answers (): Promise<Array<{ url: string, status: number, type: unknown, body: string, requestId: unknown }>> {
  return await Promise.all([...requests, { url: '/readyz', headers: {} }].map(async ({ url, headers }) => {
    const res = await app.inject({ url, headers })
    return { url: `${url} ${headers === AGENT ? 'agent' : 'plain'}`, status: res.statusCode, type: res.headers['content-type'], body: res.body, requestId: res.headers['x-request-id'] }
  }))
}

function assertUnavailable (t: Test, found: Awaited<ReturnType<typeof answers>>): void {
  for (const answer of found) {
    t.equal(answer.status, 503, answer.url)
    t.equal(answer.type, 'application/problem+json; charset=utf-8', answer.url)
    t.notMatch(answer.body, /sqlite|locked|database|malformed/i, `${answer.url}: nothing of the store's insides`)
  }
}

async function assertServed (t: Test): Promise<void> {
  for (const answer of await answers()) t.equal(answer.status, 200, answer.url)
}

t.test('the data routes are the ones expected', async (t) => {
  const urls = new Set(requests.map((request) => request.url))
  for (const url of ['/books', '/books/with-authors', '/books/1', '/invoices', '/ledger']) t.ok(urls.has(url), url)
})

t.test('while another connection holds the store locked, every data route and readiness answer 503', async (t) => {
  const locker = new SQLite(file)
  t.teardown(() => { locker.close() })
  locker.pragma('locking_mode = EXCLUSIVE')
  locker.exec('BEGIN EXCLUSIVE')
  const found = await answers()
  assertUnavailable(t, found)
  const books = found.find((answer) => answer.url === '/books/1 plain')!
  t.strictSame(JSON.parse(books.body), {
    type: 'urn:audience-gateway:problem:store-unavailable',
    title: 'Store unavailable',
    status: 503,
    detail: STORE_UNAVAILABLE_DETAIL,
    request_id: books.requestId
  })
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'alive all along')
})

t.test('once the lock is released the same app answers again', async (t) => {
  await assertServed(t)
})

t.test('while the store file is not a database, the routes answer 503; once it is again, 200', async (t) => {
  // As root, permissions do not stop this process, and an open file is never re-checked anyway:
  // the file's first page is overwritten instead, as a failed disk or a clobbered file leaves it.
  // In a turn of its own: the reads of the turn the last test ended in share one read transaction,
  // which holds the file's lock, and a change is seen from the next turn on.
  await turn()
  const restore = clobber(file, 100)
  try {
    assertUnavailable(t, await answers())
  } finally {
    restore()
  }
  await assertServed(t)
})

t.test('a closed connection is a 503 too', async (t) => {
  const { app } = await buildApp(t)
  await app.store.db.destroy()
  const res = await app.inject({ url: '/books', headers: AUTH })
  t.equal(res.statusCode, 503)
  t.equal(res.json().detail, STORE_UNAVAILABLE_DETAIL)
})

/** Overwrites the first `bytes` of `path`; returns what puts them back. */
function clobber (path: string, bytes: number): () => void {
  const saved = Buffer.alloc(bytes)
  const fd = openSync(path, 'r+')
  readSync(fd, saved, 0, bytes, 0)
  writeSync(fd, Buffer.alloc(bytes, 0x55), 0, bytes, 0)
  return function restore () {
    writeSync(fd, saved, 0, bytes, 0)
    closeSync(fd)
  }
}
