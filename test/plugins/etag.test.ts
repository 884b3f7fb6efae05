import { Readable } from 'node:stream'
import Fastify from 'fastify'
import t from 'tap'
import audience from '../../plugins/audience.js'
import etag from '../../plugins/etag.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const queries: string[] = []
const { app } = await buildApp(t, { onQuery: (sql) => { queries.push(sql) } })

async function get (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  return await app.inject({ method, url, headers })
}

t.test('a buffered answer carries a strong ETag; If-None-Match naming it is a 304 that keeps Vary', async (t) => {
  const first = await get('/books/1', AUTH)
  t.equal(first.statusCode, 200)
  const tag = first.headers.etag as string
  t.match(tag, /^"plain-[^"]+"$/)
  const again = await get('/books/1', { ...AUTH, 'if-none-match': tag })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  t.equal(again.headers.etag, tag)
  t.equal(again.headers.vary, 'Accept, X-Audience')
  t.equal(again.headers['content-type'], undefined, 'no body, so nothing describes one')
  t.equal(again.headers['content-length'], undefined, 'never a Content-Length other than the 200\'s')
})

t.test('the two audiences of one URL have different ETags, and one never validates the other', async (t) => {
  const plain = await get('/books/1', AUTH)
  const agent = await get('/books/1', AGENT)
  t.match(agent.headers.etag, /^"agent-[^"]+"$/)
  t.not(plain.headers.etag, agent.headers.etag)
  const crossed = await get('/books/1', { ...AGENT, 'if-none-match': plain.headers.etag as string })
  t.equal(crossed.statusCode, 200)
  t.same(crossed.json(), agent.json())
})

t.test('an agent page is validated like a record', async (t) => {
  const page = await get('/books?page=1&limit=2', AGENT)
  t.equal(page.statusCode, 200)
  const again = await get('/books?page=1&limit=2', { ...AGENT, 'if-none-match': page.headers.etag as string })
  t.equal(again.statusCode, 304)
  t.equal(again.headers.vary, 'Accept, X-Audience')
})

t.test('a plain list carries a weak validator of its data: If-None-Match naming it is a 304, no row read', async (t) => {
  const first = await get('/ledger')
  const tag = first.headers.etag as string
  t.match(tag, /^W\/"plain-[^"]+"$/)
  t.equal((await get('/ledger')).headers.etag, tag, 'the same while the data is')
  queries.length = 0
  const again = await get('/ledger', { 'if-none-match': tag })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  t.equal(again.headers.etag, tag)
  t.equal(again.headers.vary, 'Accept, X-Audience')
  t.equal(again.headers['content-type'], undefined)
  t.strictSame(queries.filter((sql) => /from "ledger"/.test(sql)), [], 'the list was not read')
  t.equal((await get('/ledger', { 'if-none-match': `"other", ${tag.slice(2)}` })).statusCode, 304, 'weakly compared, in a list')
  t.equal((await get('/ledger', { 'if-none-match': '"plain-anything"' })).statusCode, 200, 'another tag: the list')
  t.not((await get('/books', AUTH)).headers.etag, tag, 'another list, another tag')
  t.not((await get('/ledger', { 'x-audience': 'agent' })).headers.etag, tag, 'the agent\'s page has its own')
})

t.test('any write changes a plain list\'s validator: the old one gets the new list', async (t) => {
  const before = await get('/books', AUTH)
  await app.store.db.updateTable('books').set({ title: 'The Dispossessed (revised)' }).where('id', '=', 1).execute()
  t.teardown(async () => { await app.store.db.updateTable('books').set({ title: 'The Dispossessed' }).where('id', '=', 1).execute() })
  const after = await get('/books', { ...AUTH, 'if-none-match': before.headers.etag as string })
  t.equal(after.statusCode, 200)
  t.not(after.headers.etag, before.headers.etag)
  t.equal(after.json()[0].title, 'The Dispossessed (revised)')
})

t.test('If-None-Match lists, weak tags, * and HEAD are understood', async (t) => {
  const tag = (await get('/books/1', AUTH)).headers.etag as string
  for (const condition of [`"other", ${tag}`, `W/${tag}`, '*']) {
    t.equal((await get('/books/1', { ...AUTH, 'if-none-match': condition })).statusCode, 304, condition)
  }
  const head = await get('/books/1', { ...AUTH, 'if-none-match': tag }, 'HEAD')
  t.equal(head.statusCode, 304, 'HEAD')
  t.equal(head.headers['content-length'], (await get('/books/1', AUTH, 'HEAD')).headers['content-length'], 'the 200\'s length, if any')
  t.equal((await get('/books/1', { ...AUTH, 'if-none-match': '"other"' })).statusCode, 200, 'no match')
})

t.test('a changed record gets a new ETag, so the old one is answered in full', async (t) => {
  const before = await get('/books/3', AUTH)
  await app.store.db.updateTable('books').set({ title: 'A Wizard of Earthsea (revised)' }).where('id', '=', 3).execute()
  t.teardown(async () => { await app.store.db.updateTable('books').set({ title: 'A Wizard of Earthsea' }).where('id', '=', 3).execute() })
  const after = await get('/books/3', { ...AUTH, 'if-none-match': before.headers.etag as string })
  t.equal(after.statusCode, 200)
  t.not(after.headers.etag, before.headers.etag)
  t.equal(after.json().title, 'A Wizard of Earthsea (revised)')
})

t.test('a problem has no ETag and no precondition turns it into a 304', async (t) => {
  const res = await get('/books/999', { ...AUTH, 'if-none-match': '*' })
  t.equal(res.statusCode, 404)
  t.equal(res.headers.etag, undefined)
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
})

t.test('a route with one representation gets a plain hash as its ETag', async (t) => {
  const res = await get('/healthz')
  t.match(res.headers.etag, /^"[^"-]+"$/)
  t.equal((await get('/healthz', { 'if-none-match': res.headers.etag as string })).statusCode, 304)
})

t.test('only GET and HEAD are answered 304', async (t) => {
  const bare = Fastify({ logger: false })
  await bare.register(audience)
  await bare.register(etag)
  bare.post('/echo', async () => 'same bytes')
  t.teardown(() => bare.close())
  const res = await bare.inject({ method: 'POST', url: '/echo', headers: { 'if-none-match': '*' } })
  t.equal(res.statusCode, 200)
  t.equal(res.body, 'same bytes')
  t.equal(res.headers.etag, undefined, 'a POST\'s answer is no representation to validate later')
})

t.test('a streamed answer without a tag of its route\'s is matched by * alone', async (t) => {
  const bare = Fastify({ logger: false })
  await bare.register(audience)
  await bare.register(etag)
  bare.get('/stream', async () => Readable.from(['a stream']))
  t.teardown(() => bare.close())
  const plain = await bare.inject({ url: '/stream' })
  t.equal(plain.statusCode, 200)
  t.equal(plain.body, 'a stream')
  t.equal(plain.headers.etag, undefined, 'its bytes are not known before they are sent')
  t.equal((await bare.inject({ url: '/stream', headers: { 'if-none-match': '*' } })).statusCode, 304)
  t.equal((await bare.inject({ url: '/stream', headers: { 'if-none-match': '"a-tag"' } })).statusCode, 200)
  t.equal((await bare.inject({ url: '/stream', headers: { 'if-match': '"a-tag"' } })).statusCode, 412)
})

t.test('an MCP answer (a POST\'s) has no ETag', async (t) => {
  const res = await app.inject({ method: 'POST', url: '/mcp', headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { result: { tools: Array } })
  t.equal(res.headers.etag, undefined)
})

t.test('If-Match naming the current tag (or *) is served; naming anything else is a 412 problem', async (t) => {
  const tag = (await get('/books/1', AUTH)).headers.etag as string
  t.equal((await get('/books/1', { ...AUTH, 'if-match': tag })).statusCode, 200)
  t.equal((await get('/books/1', { ...AUTH, 'if-match': `"other", ${tag}` })).statusCode, 200, 'any tag of the list')
  t.equal((await get('/books/1', { ...AUTH, 'if-match': '*' })).statusCode, 200)
  for (const sent of ['"other"', `W/${tag}`]) {
    const refused = await get('/books/1', { ...AUTH, 'if-match': sent })
    t.equal(refused.statusCode, 412, sent)
    t.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8')
    t.equal(refused.headers.etag, undefined)
    t.match(refused.json(), { type: 'urn:audience-gateway:problem:precondition-failed', status: 412, title: 'Precondition failed' })
  }
})

t.test('a plain list\'s tag is weak: If-None-Match * is a 304, If-Match anything but * a 412', async (t) => {
  const unchanged = await get('/ledger', { 'if-none-match': '*' })
  t.equal(unchanged.statusCode, 304)
  t.equal(unchanged.body, '')
  t.equal((await get('/ledger', { 'if-none-match': '"whatever"' })).statusCode, 200)
  t.equal((await get('/ledger', { 'if-match': '*' })).statusCode, 200)
  const current = (await get('/ledger')).headers.etag as string
  for (const sent of ['"whatever"', current, current.slice(2)]) {
    const refused = await get('/ledger', { 'if-match': sent })
    t.equal(refused.statusCode, 412, sent)
    t.equal(refused.json().type, 'urn:audience-gateway:problem:precondition-failed')
  }
  // The list's rows were released: the next plain list streams as usual.
  t.equal((await get('/ledger')).json().length, 1240)
})

t.test('a plain list refused 412 while it streams (nothing kept) has its stream closed and its reader given back', async (t) => {
  const { app: streaming } = await buildApp(t, { responseCacheBytes: 0 })
  const current = (await streaming.inject({ url: '/ledger' })).headers.etag as string
  // More refusals than the store has readers (8): each one's reader must have been given back.
  for (let i = 0; i < 10; i++) t.equal((await streaming.inject({ url: '/ledger', headers: { 'if-match': `"not-${current}"` } })).statusCode, 412)
  t.equal((await streaming.inject({ url: '/ledger' })).json().length, 1240)
})

t.test('preconditions do not apply to a record that is not there', async (t) => {
  t.equal((await get('/books/99', { ...AUTH, 'if-none-match': '*' })).statusCode, 404)
  t.equal((await get('/books/99', { ...AUTH, 'if-match': '"x"' })).statusCode, 404)
})
