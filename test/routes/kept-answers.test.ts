// Answers kept while the data is unchanged (src/core/served-cache.ts), through the real app: a
// request asked a second time keeps its answer, and from the third it is served without reading a
// row; any committed write (an insert, an update, a delete) is read by the next request. On PostgreSQL a write anywhere in the cluster
// renames the data, so there only what is served is checked, not whether it was kept.
import t from 'tap'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const queries: string[] = []
const { app, checkedGet } = await buildApp(t, { onQuery: (sql) => { queries.push(sql) } })
const sqlite = app.store.kind === 'sqlite'

/** GETs `url`, checked against its declared schema; `reads` is every statement but the data's version. */
async function get (url: string, headers: Record<string, string>): Promise<{ status: number, body: string, etag: unknown, reads: string[] }> {
  queries.length = 0
  const res = await checkedGet(t, url, headers)
  return { status: res.statusCode, body: res.body, etag: res.headers.etag, reads: queries.filter((sql) => !/data_version|pg_current_snapshot/.test(sql)) }
}

const NEW_BOOK = { id: 4, title: 'The Left Hand of Darkness', status: 'published' as const, price: '12.50', published_on: '1969-03-01', author_id: 1 }

t.test('an agent page asked again is kept and then served as kept, and a write is read by the next request', async (t) => {
  const first = await get('/books?page=1&limit=1', AGENT)
  t.equal(JSON.parse(first.body).totalPages, 3)
  t.ok(first.reads.length > 0, 'the first request reads the rows')
  const second = await get('/books?page=1&limit=1', AGENT)
  t.equal(second.body, first.body)
  if (sqlite) t.ok(second.reads.length > 0, 'the second reads them too: an answer is kept from its second ask')
  const again = await get('/books?page=1&limit=1', AGENT)
  t.equal(again.body, first.body, 'the same bytes')
  // On PostgreSQL any commit in the cluster (another test's, in another schema) renames the data.
  if (sqlite) t.equal(again.etag, first.etag, 'the same ETag')
  if (sqlite) t.strictSame(again.reads, [], 'no row read: the page was kept')
  const other = await get('/books?page=2&limit=1', AGENT)
  t.not(other.body, first.body, 'another page is another answer')

  await app.store.db.insertInto('books').values(NEW_BOOK).execute()
  t.teardown(async () => { await app.store.db.deleteFrom('books').where('id', '=', NEW_BOOK.id).execute() })
  const written = await get('/books?page=1&limit=1', AGENT)
  t.equal(JSON.parse(written.body).totalPages, 4, 'the insert is counted')
  t.ok(written.reads.length > 0, 'read again')
  await get('/books?page=1&limit=1', AGENT)

  await app.store.db.updateTable('books').set({ title: 'The Dispossessed, revised' }).where('id', '=', 1).execute()
  t.teardown(async () => { await app.store.db.updateTable('books').set({ title: 'The Dispossessed' }).where('id', '=', 1).execute() })
  t.equal(JSON.parse((await get('/books?page=1&limit=1', AGENT)).body).items[0].title, 'The Dispossessed, revised', 'the update is served')
})

t.test('a plain list asked again is kept, then sent as its kept bytes, with the same validator; a write is read by the next request', async (t) => {
  const first = await get('/books', AUTH)
  t.equal(JSON.parse(first.body).length, 3)
  t.match(first.etag, /^W\//)
  const second = await get('/books', AUTH)
  t.equal(second.body, first.body)
  if (sqlite) t.ok(second.reads.length > 0, 'the second reads the list: it is kept from its second ask')
  const again = await get('/books', AUTH)
  t.equal(again.body, first.body, 'the same bytes')
  // On PostgreSQL any commit in the cluster (another test's, in another schema) renames the data.
  if (sqlite) t.equal(again.etag, first.etag, 'the same weak ETag')
  if (sqlite) t.strictSame(again.reads, [], 'no row read: the list was kept')

  await app.store.db.deleteFrom('books').where('id', '=', 3).execute()
  t.teardown(async () => { await app.store.db.insertInto('books').values({ id: 3, title: 'A Wizard of Earthsea', status: 'published' as const, price: '9.99', published_on: '1968-11-01', author_id: 1 }).execute() })
  const written = await get('/books', AUTH)
  t.strictSame(JSON.parse(written.body).map((book: { id: number }) => book.id), [1, 2], 'the delete is served')
  t.not(written.etag, first.etag, 'under a new validator')
})

t.test('a HEAD of a kept list has the GET\'s headers and no body', async (t) => {
  await get('/ledger', AUTH)
  await get('/ledger', AUTH)
  const got = await app.inject({ method: 'GET', url: '/ledger', headers: AUTH })
  const head = await app.inject({ method: 'HEAD', url: '/ledger', headers: AUTH })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  // On PostgreSQL any commit in the cluster between the two requests renames the data.
  if (sqlite) t.equal(head.headers.etag, got.headers.etag)
  else t.match(head.headers.etag, /^W\//)
  t.equal(head.headers['content-type'], got.headers['content-type'])
})

t.test('filters and arguments name their own answers', async (t) => {
  const all = await get('/invoices', AUTH)
  const paid = await get('/invoices?status=PAID', AUTH)
  t.not(paid.body, all.body)
  t.ok(JSON.parse(paid.body).every((invoice: { status: string }) => invoice.status === 'PAID'))
  // Asked again, then served as kept: each under its own name.
  for (let ask = 0; ask < 2; ask++) {
    t.equal((await get('/invoices?status=PAID', AUTH)).body, paid.body)
    t.equal((await get('/invoices', AUTH)).body, all.body)
  }
  const agentPaid = await get('/invoices?status=PAID', AGENT)
  for (let ask = 0; ask < 2; ask++) {
    t.equal((await get('/invoices?status=PAID', AGENT)).body, agentPaid.body)
    t.not((await get('/invoices', AGENT)).body, agentPaid.body)
  }
})

t.test('lookups are counted: gateway_response_cache_total by outcome', async (t) => {
  const before = await outcomes()
  for (let ask = 0; ask < 3; ask++) await get('/ledger?offset=3&limit=2', AGENT)
  const after = await outcomes()
  t.equal(after.hit + after.miss - before.hit - before.miss, 3, 'each lookup counted once')
  if (sqlite) t.equal(after.hit - before.hit, 1, 'the third was a hit: the second kept the answer')
})

async function outcomes (): Promise<{ hit: number, miss: number }> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_response_cache_total')!.get()
  const of = (outcome: string): number => metric.values.find((value) => value.labels.outcome === outcome)?.value ?? 0
  return { hit: of('hit'), miss: of('miss') }
}

t.test('RESPONSE_CACHE_MB=0 keeps nothing: every request reads its rows', async (t) => {
  const reads: string[] = []
  const { app: uncached } = await buildApp(t, { responseCacheBytes: 0, onQuery: (sql) => { reads.push(sql) } })
  for (const headers of [AGENT, AUTH]) {
    // Asked twice, which would keep it: the third reads its rows.
    await uncached.inject({ method: 'GET', url: '/books', headers })
    await uncached.inject({ method: 'GET', url: '/books', headers })
    reads.length = 0
    await uncached.inject({ method: 'GET', url: '/books', headers })
    t.ok(reads.some((sql) => /from "books"/i.test(sql)), 'the second request read the books')
  }
})

t.test('an answer larger than its share of the cache is served, never kept', async (t) => {
  const reads: string[] = []
  // 64 bytes in all: an answer may take 8.
  const { app: small } = await buildApp(t, { responseCacheBytes: 64, onQuery: (sql) => { reads.push(sql) } })
  for (const headers of [AGENT, AUTH]) {
    // The second ask would keep it, were it light enough: the third reads it again.
    const first = await small.inject({ method: 'GET', url: '/books', headers })
    await small.inject({ method: 'GET', url: '/books', headers })
    reads.length = 0
    const again = await small.inject({ method: 'GET', url: '/books', headers })
    t.equal(again.body, first.body)
    t.ok(reads.some((sql) => /from "books"/i.test(sql)), 'read again')
  }
})
