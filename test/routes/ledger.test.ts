// GET /ledger: the offset envelope an agent loops on, through the real app, every body checked
// against the schema the route declares for what it answered.
import { request } from 'node:http'
import t from 'tap'
import { AGENT_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../../src/audience.js'
import { CHUNK_BYTES } from '../../src/core/json-array.js'
import { ledgerEntry } from '../../demo/catalogue.js'
import { buildApp } from '../helpers/app.js'

const queries: string[] = []
const { declaredSchema, checkedGet } = await buildApp(t, { onQuery: (sql) => { queries.push(sql) } })

// The ledger is open: no key in any of these requests.
const AGENT = { 'x-audience': 'agent' } as const
const TOTAL = 1240

interface Envelope {
  items: Array<{ id: number }>
  has_more: boolean
  total_entries: number
  returned: number
  offset: number
  limit: number
  next_offset?: number
  limit_clamped?: true
  hint?: string
}

/** GETs `url` and checks the body against the schema /ledger declares for what it answered. */
const get = async (url: string, headers: Record<string, string> = AGENT) => await checkedGet(t, url, headers, '/ledger')

async function page (query: string): Promise<Envelope> {
  const res = await get(`/ledger?${query}`)
  t.equal(res.statusCode, 200, query)
  return res.json()
}

function ids (from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i)
}

t.test('the ledger needs no key, for either audience', async (t) => {
  const plain = await get('/ledger', {})
  t.equal(plain.statusCode, 200)
  t.equal(plain.headers['content-type'], 'application/json; charset=utf-8')
  const entries = plain.json()
  t.equal(entries.length, TOTAL)
  t.strictSame(entries[0], { id: 1, memo: 'Entry 1', amount: '80.19', posted_at: '2026-01-01T00:00:00Z', account_id: 2 })
  t.strictSame(entries.map((e: { id: number }) => e.id), ids(1, TOTAL))
  t.equal((await get('/ledger')).statusCode, 200)
})

t.test('a plain list shorter than a chunk is sent whole, with its length, the whole ledger too; a longer one streams', async (t) => {
  // Over a socket (inject measures every body it collects, streamed or not), from an app of this
  // test's own, closed with it.
  const { app } = await buildApp(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const headersOf = async (path: string): Promise<{ headers: Record<string, unknown>, body: string }> => await new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => { body += chunk }).on('end', () => { resolve({ headers: response.headers, body }) })
    }).on('error', reject).end()
  })
  const wholes = [{ path: '/ledger?posted_at_max=2026-01-25T18:00:00Z', length: 100 }, { path: '/ledger', length: TOTAL }]
  for (const { path, length } of wholes) {
    const whole = await headersOf(path)
    t.equal(JSON.parse(whole.body).length, length, path)
    t.equal(whole.headers['content-length'], String(Buffer.byteLength(whole.body)), `${path}: one body of known length`)
    t.equal(whole.headers['transfer-encoding'], undefined, `${path}: not chunked`)
    t.match(whole.headers.etag, /^W\/"plain-/, `${path}: the plain list's validator, as for a stream`)
  }
  // Three times the entries: a list longer than a chunk.
  const more = Array.from({ length: 2 * TOTAL }, (_, i) => ledgerEntry(TOTAL + i + 1))
  for (let start = 0; start < more.length; start += 200) await app.store.db.insertInto('ledger').values(more.slice(start, start + 200)).execute()
  const streamed = await headersOf('/ledger')
  t.ok(Buffer.byteLength(streamed.body) > CHUNK_BYTES, 'longer than a chunk')
  t.strictSame(JSON.parse(streamed.body).map((entry: { id: number }) => entry.id), ids(1, 3 * TOTAL))
  t.equal(streamed.headers['transfer-encoding'], 'chunked', 'streamed')
  t.equal(streamed.headers['content-length'], undefined)
})

t.test('an agent gets the first 50 entries, projected, in the offset envelope', async (t) => {
  const res = await get('/ledger')
  t.equal(res.headers['content-type'], `${AGENT_MEDIA_TYPE}; charset=utf-8`)
  const body = res.json()
  t.strictSame({ ...body, items: undefined }, {
    items: undefined,
    has_more: true,
    total_entries: TOTAL,
    returned: 50,
    offset: 0,
    limit: 50,
    next_offset: 50,
    hint: 'Send offset=50 to get the next entries; repeat until has_more is false.'
  })
  t.strictSame(body.items.map((e: { id: number }) => e.id), ids(1, 50))
  t.strictSame(body.items[1], { id: 2, memo: 'Entry 2', amount: 'EUR 159.38', posted_at: '01 Jan 2026 06:00 +00:00' }, 'account_id is hidden')
})

t.test('a walk from offset 0 following next_offset returns every entry exactly once', async (t) => {
  const seen: number[] = []
  const totals = new Set<number>()
  let last: Envelope | undefined
  for (let offset: number | undefined = 0; offset !== undefined; offset = last.next_offset) {
    last = await page(`offset=${offset}&limit=100`)
    seen.push(...last.items.map((e) => e.id))
    totals.add(last.total_entries)
    if (last.has_more) t.equal(last.hint, `Send offset=${String(last.next_offset)} to get the next entries; repeat until has_more is false.`)
  }
  t.strictSame(seen, ids(1, TOTAL))
  t.strictSame([...totals], [TOTAL], 'total_entries never changes')
  t.strictSame(last, { items: last?.items, has_more: false, total_entries: TOTAL, returned: 40, offset: 1200, limit: 100 }, 'the last page: no next_offset, no hint')
})

t.test('the exact end (offset + limit == total) says has_more false', async (t) => {
  const body = await page('offset=740&limit=500')
  t.strictSame({ ...body, items: undefined }, { items: undefined, has_more: false, total_entries: TOTAL, returned: 500, offset: 740, limit: 500 })
  t.strictSame(body.items.map((e) => e.id), ids(741, TOTAL))
})

t.test('an offset at and past the end: an empty 200 echoing the offset', async (t) => {
  for (const offset of [TOTAL, TOTAL + 1, 1000000]) {
    t.strictSame(await page(`offset=${offset}`), { items: [], has_more: false, total_entries: TOTAL, returned: 0, offset, limit: 50 }, `offset ${offset}`)
  }
})

t.test('an offset past the end reads no rows: never an unbounded OFFSET query', async (t) => {
  queries.length = 0
  await page('offset=1000000')
  t.notOk(queries.some((sql) => /\boffset\b/i.test(sql)), 'no query has an OFFSET')
  queries.length = 0
  await page('offset=100&limit=10')
  t.equal(queries.filter((sql) => /limit (?:\?|\$\d+) offset (?:\?|\$\d+)/i.test(sql)).length, 1, 'a page within the ledger reads its rows once')
})

t.test('a limit of 500 is not a clamp; 501 is, and is disclosed', async (t) => {
  const at = await page('limit=500')
  t.strictSame([at.limit, at.returned, 'limit_clamped' in at, at.hint], [500, 500, false, 'Send offset=500 to get the next entries; repeat until has_more is false.'])
  const over = await page('limit=501')
  t.strictSame([over.limit, over.returned, over.limit_clamped, over.next_offset], [500, 500, true, 500])
  t.equal(over.hint, 'Send offset=500 to get the next entries; repeat until has_more is false; limit was clamped to the maximum of 500.')
})

t.test('a clamped request that fits in one page carries the clamp clause alone', async (t) => {
  const body = await page('offset=1000&limit=100000')
  t.strictSame({ ...body, items: undefined }, {
    items: undefined,
    has_more: false,
    total_entries: TOTAL,
    returned: 240,
    offset: 1000,
    limit: 500,
    limit_clamped: true,
    hint: 'limit was clamped to the maximum of 500.'
  })
})

t.test('identical requests give byte-identical bodies', async (t) => {
  for (const query of ['', '?offset=617&limit=33', '?limit=501', '?offset=5000']) {
    const first = await get(`/ledger${query}`)
    const second = await get(`/ledger${query}`)
    t.equal(second.body, first.body, query)
  }
  t.equal((await get('/ledger', {})).body, (await get('/ledger', {})).body, 'plain')
})

t.test('invalid values: a 400 naming the parameter and the rule', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['limit=0', 'limit', />= 1|at least 1/],
    ['offset=-1', 'offset', />= 0|at least 0/],
    ['limit=1.5', 'limit', /integer/],
    ['offset=1.5', 'offset', /integer/],
    ['offset=abc', 'offset', /integer/],
    ['limit=abc', 'limit', /integer/],
    ['limit=', 'limit', /integer/]
  ]
  for (const [query, name, rule] of cases) {
    const res = await get(`/ledger?${query}`)
    t.equal(res.statusCode, 400, query)
    t.equal(res.headers['content-type'], `${PROBLEM_MEDIA_TYPE}; charset=utf-8`)
    const { errors } = res.json()
    t.strictSame(Object.keys(errors), [name], `${query} names ${name}`)
    t.match(errors[name].join(' '), rule, `${query} says the rule`)
  }
})

t.test('paging parameters from a plain client: 400 saying they apply to agents', async (t) => {
  const res = await get('/ledger?offset=50', {})
  t.equal(res.statusCode, 400)
  t.match(res.json().errors.offset[0], /agents only/)
})

t.test('the declared agent schema: total_entries required, the optional fields optional', async (t) => {
  const schema = declaredSchema('/ledger', 200, AGENT_MEDIA_TYPE) as { required: string[], properties: Record<string, unknown> }
  t.strictSame(schema.required, ['items', 'has_more', 'total_entries', 'returned', 'offset', 'limit'])
  t.strictSame(Object.keys(schema.properties), ['items', 'has_more', 'total_entries', 'returned', 'offset', 'limit', 'next_offset', 'limit_clamped', 'hint'])
})

t.test('posted_at_min and posted_at_max: an agent pages the entries of one day, counted before the page', async (t) => {
  const day = 'posted_at_min=2026-01-02T00:00:00Z&posted_at_max=2026-01-02T23:59:59Z'
  const first = await page(`${day}&limit=3`)
  t.strictSame(first.items.map((item) => item.id), [5, 6, 7])
  t.match(first, { total_entries: 4, has_more: true, next_offset: 3 })
  t.equal(first.hint, 'Send offset=3 with the same posted_at_min and posted_at_max to get the next entries; repeat until has_more is false.', 'the hint says to send the filters again')
  const rest = await page(`${day}&limit=3&offset=3`)
  t.strictSame(rest.items.map((item) => item.id), [8])
  t.equal(rest.has_more, false)
  const unfiltered = await page('limit=1')
  t.equal(unfiltered.total_entries, TOTAL, 'the unfiltered total is its own')
  const shifted = await page('posted_at_min=2026-01-02T01:00:00%2B01:00&posted_at_max=2026-01-02T19:00:00%2B01:00')
  t.strictSame(shifted.items.map((item) => item.id), [5, 6, 7, 8], 'an offset is compared in UTC')
  const open = await page('posted_at_min=2026-10-01T00:00:00Z')
  t.equal(open.total_entries, TOTAL - 1092, 'one bound alone')
  t.match(open.hint, /^Send offset=50 with the same posted_at_min to get the next entries;/)
  t.match(unfiltered.hint, /^Send offset=1 to get the next entries;/, 'no filter, nothing to send again')
})

t.test('a plain client gets the filtered entries as a bare array', async (t) => {
  const res = await get('/ledger?posted_at_min=2026-01-02T00:00:00Z&posted_at_max=2026-01-02T12:00:00Z', {})
  t.equal(res.statusCode, 200)
  t.strictSame(res.json().map((entry: { id: number }) => entry.id), [5, 6, 7])
  t.strictSame(res.json()[0], { id: 5, memo: 'Entry 5', amount: res.json()[0].amount, posted_at: '2026-01-02T00:00:00Z', account_id: 6 })
})

t.test('a malformed instant is a 400 naming the argument, for either audience', async (t) => {
  for (const headers of [AGENT, {}]) {
    const res = await get('/ledger?posted_at_min=2026-01-02&posted_at_max=tomorrow', headers)
    t.equal(res.statusCode, 400)
    t.strictSame(res.json().errors, { posted_at_min: ['Must match format "date-time".'], posted_at_max: ['Must match format "date-time".'] })
  }
})
