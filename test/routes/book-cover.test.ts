// GET /books/{id}/cover: the PNG to a plain client, whole or by range (RFC 9110 section 14), and
// windows of its bytes to an agent, over HTTP and MCP; every body checked against the schema the
// route declares for what it answered.
import t from 'tap'
import Type from 'typebox'
import { AGENT_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../../src/audience.js'
import { compileMount, MountError } from '../../src/core/index.js'
import { unrestricted } from '../../src/permissions.js'
import { coverImage } from '../../demo/cover.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const { app, checkedGet } = await buildApp(t)

const ROUTE = '/books/:id/cover'
const COVER = coverImage(1)
const LENGTH = COVER.length
const MCP_HEADERS = { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

interface Window {
  content: string
  encoding: 'utf-8' | 'base64'
  offset: number
  returned: number
  total_bytes: number
  has_more: boolean
  next_offset: number
  hint?: string
}

const get = async (headers: Record<string, string>, url = '/books/1/cover') => await checkedGet(t, url, headers, ROUTE)

async function plainTag (): Promise<string> {
  return (await app.inject({ url: '/books/1/cover', headers: AUTH })).headers.etag as string
}

t.test('a plain client (a browser) gets the image whole: its type, length, a strong ETag, Accept-Ranges', async (t) => {
  const res = await get(AUTH)
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'image/png')
  t.equal(res.headers['accept-ranges'], 'bytes')
  t.equal(res.headers['content-length'], String(LENGTH))
  t.match(res.headers.etag, /^"plain-[A-Za-z0-9_-]+"$/, 'strong, named for its audience')
  t.notOk('content-range' in res.headers)
  t.strictSame(res.rawPayload, COVER, 'the very bytes the store holds')
  t.ok(LENGTH > 2000 && LENGTH < 8000, `a few KB: ${LENGTH}`)
  const browser = await app.inject({ url: '/books/1/cover', headers: { ...AUTH, accept: 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8' } })
  t.equal(browser.headers['content-type'], 'image/png', 'a browser\'s Accept gets the image')
})

t.test('every single Range form is a 206 with Content-Range', async (t) => {
  const cases: Array<[string, number, number]> = [
    ['bytes=0-99', 0, 99],
    ['bytes=100-', 100, LENGTH - 1],
    ['bytes=-10', LENGTH - 10, LENGTH - 1],
    ['bytes=-100000', 0, LENGTH - 1],
    ['bytes=10-100000', 10, LENGTH - 1],
    [`bytes=${LENGTH - 1}-${LENGTH - 1}`, LENGTH - 1, LENGTH - 1],
    ['BYTES=5-9', 5, 9],
    [' bytes=5-9 , ', 5, 9]
  ]
  for (const [range, start, end] of cases) {
    const res = await get({ ...AUTH, range })
    t.equal(res.statusCode, 206, range)
    t.equal(res.headers['content-range'], `bytes ${start}-${end}/${LENGTH}`, range)
    t.equal(res.headers['content-length'], String(end - start + 1), range)
    t.equal(res.headers['content-type'], 'image/png')
    t.equal(res.headers.etag, await plainTag(), 'the whole content\'s validator')
    t.strictSame(res.rawPayload, COVER.subarray(start, end + 1), range)
  }
})

t.test('a range past the end is a 416 naming the length; an empty suffix too', async (t) => {
  for (const range of [`bytes=${LENGTH}-`, 'bytes=999999-1000000', 'bytes=-0']) {
    const res = await get({ ...AUTH, range })
    t.equal(res.statusCode, 416, range)
    t.equal(res.headers['content-range'], `bytes */${LENGTH}`)
    t.equal(res.headers['content-type'], `${PROBLEM_MEDIA_TYPE}; charset=utf-8`)
    t.notOk('etag' in res.headers)
    t.match(res.json(), { status: 416, type: 'urn:audience-gateway:problem:range-not-satisfiable', detail: `The Range header asks for bytes this content does not have: it has ${LENGTH} bytes, numbered from 0.` })
  }
})

t.test('several ranges, a malformed Range, another unit: the whole content, 200', async (t) => {
  for (const range of ['bytes=0-1,5-6', 'bytes=5-1', 'bytes=a-b', 'bytes=-', 'bytes 0-1', 'items=0-1', 'bytes=', 'bytes=1-2-3']) {
    const res = await get({ ...AUTH, range })
    t.equal(res.statusCode, 200, range)
    t.notOk('content-range' in res.headers, range)
    t.equal(res.rawPayload.length, LENGTH, range)
  }
})

t.test('If-Range: the current ETag gets the range; a stale one, a weak one or a date the whole 200', async (t) => {
  const tag = await plainTag()
  t.equal((await get({ ...AUTH, range: 'bytes=0-9', 'if-range': tag })).statusCode, 206)
  for (const ifRange of ['"plain-stale"', `W/${tag}`, tag.replace('plain-', 'agent-'), 'Wed, 21 Oct 2015 07:28:00 GMT']) {
    const res = await get({ ...AUTH, range: 'bytes=0-9', 'if-range': ifRange })
    t.equal(res.statusCode, 200, ifRange)
    t.equal(res.rawPayload.length, LENGTH)
  }
})

t.test('conditional requests: If-None-Match is a 304 for a range too, If-Match a 412 when stale', async (t) => {
  const tag = await plainTag()
  for (const headers of [{}, { range: 'bytes=0-9' }]) {
    const res = await app.inject({ url: '/books/1/cover', headers: { ...AUTH, ...headers, 'if-none-match': tag } })
    t.equal(res.statusCode, 304, JSON.stringify(headers))
    t.equal(res.body, '')
    t.notOk('content-range' in res.headers)
    t.equal(res.headers.etag, tag)
  }
  const stale = await app.inject({ url: '/books/1/cover', headers: { ...AUTH, range: 'bytes=0-9', 'if-match': '"plain-old"' } })
  t.equal(stale.statusCode, 412)
  t.notOk('content-range' in stale.headers)
  t.equal((await app.inject({ url: '/books/1/cover', headers: { ...AUTH, range: 'bytes=0-9', 'if-match': tag } })).statusCode, 206)
})

t.test('preconditions come before Range: an unsatisfiable range with If-None-Match current is a 304, with If-Match stale a 412', async (t) => {
  const tag = await plainTag()
  for (const range of [`bytes=${LENGTH}-`, 'bytes=-0']) {
    const unchanged = await app.inject({ url: '/books/1/cover', headers: { ...AUTH, range, 'if-none-match': tag } })
    t.equal(unchanged.statusCode, 304, range)
    t.equal(unchanged.body, '')
    t.notOk('content-range' in unchanged.headers)
    for (const method of ['GET', 'HEAD'] as const) {
      const stale = await app.inject({ method, url: '/books/1/cover', headers: { ...AUTH, range, 'if-match': '"plain-old"' } })
      t.equal(stale.statusCode, 412, `${method} ${range}`)
      t.notOk('content-range' in stale.headers)
    }
    // Preconditions that hold leave the range to decide: still a 416.
    t.equal((await app.inject({ url: '/books/1/cover', headers: { ...AUTH, range, 'if-match': tag } })).statusCode, 416, range)
    t.equal((await app.inject({ url: '/books/1/cover', headers: { ...AUTH, range, 'if-none-match': '"plain-old"' } })).statusCode, 416, range)
  }
  const head = await app.inject({ method: 'HEAD', url: '/books/1/cover', headers: { ...AUTH, range: `bytes=${LENGTH}-`, 'if-none-match': tag } })
  t.equal(head.statusCode, 304)
})

t.test('HEAD: the same headers, no body', async (t) => {
  for (const [range, status, length] of [[undefined, 200, LENGTH], ['bytes=0-99', 206, 100]] as const) {
    const res = await app.inject({ method: 'HEAD', url: '/books/1/cover', headers: range === undefined ? AUTH : { ...AUTH, range } })
    t.equal(res.statusCode, status)
    t.equal(res.headers['content-length'], String(length))
    t.equal(res.headers['accept-ranges'], 'bytes')
    t.equal(res.headers['content-type'], 'image/png')
    t.equal(res.rawPayload.length, 0)
  }
})

t.test('an agent walks the cover by next_offset and reassembles it byte for byte', async (t) => {
  const windows: Window[] = []
  for (let offset: number | undefined; windows.at(-1)?.has_more !== false; offset = windows.at(-1)?.next_offset) {
    const res = await get(AGENT, `/books/1/cover${offset === undefined ? '' : `?offset=${offset}`}`)
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], `${AGENT_MEDIA_TYPE}; charset=utf-8`)
    t.notOk('accept-ranges' in res.headers)
    windows.push(res.json())
  }
  t.equal(windows.length, Math.ceil(LENGTH / 1024), 'windows of 1024 bytes by default')
  t.strictSame(Buffer.concat(windows.map((w) => Buffer.from(w.content, 'base64'))), COVER)
  for (const w of windows) {
    t.equal(w.encoding, 'base64')
    t.equal(w.total_bytes, LENGTH)
    t.equal(w.returned, Buffer.from(w.content, 'base64').length, 'returned counts bytes')
    t.equal(w.next_offset, w.offset + w.returned)
    t.equal('hint' in w, w.has_more, 'a hint iff more remains')
  }
  t.equal(windows[0].hint, 'Send offset=1024 to get the next bytes; repeat until has_more is false.')
  t.equal(windows.at(-1)?.next_offset, LENGTH, 'done: next_offset is total_bytes')
})

t.test('max_bytes: up to the ceiling; over it refused naming the ceiling, not clamped', async (t) => {
  const whole: Window = (await get(AGENT, '/books/1/cover?max_bytes=4096')).json()
  t.equal(whole.returned, Math.min(4096, LENGTH))
  for (const max of [4097, 100000]) {
    const res = await get(AGENT, `/books/1/cover?max_bytes=${max}`)
    t.equal(res.statusCode, 400)
    t.strictSame(res.json().errors, { max_bytes: ['Must be <= 4096.'] })
  }
  t.strictSame((await get(AGENT, '/books/1/cover?max_bytes=3')).json().errors, { max_bytes: ['Must be >= 4.'] })
  t.strictSame((await get(AGENT, '/books/1/cover?offset=-1')).json().errors, { offset: ['Must be >= 0.'] })
})

t.test('an offset past the end: an empty window, not an error', async (t) => {
  const res = await get(AGENT, '/books/1/cover?offset=999999')
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), { content: '', encoding: 'base64', offset: 999999, returned: 0, total_bytes: LENGTH, has_more: false, next_offset: LENGTH })
})

t.test('a plain client may not send the window\'s parameters; no such book is a 404', async (t) => {
  const res = await get(AUTH, '/books/1/cover?offset=10')
  t.equal(res.statusCode, 400)
  t.match(res.json().errors, { offset: [/Byte windows apply to agents only/] })
  const missing = await get(AUTH, '/books/99/cover')
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().detail, 'No content at /books/99/cover.')
  t.equal((await get(AGENT, '/books/99/cover')).statusCode, 404)
})

t.test('over MCP: the same windows as structured content, and a walk reassembles the cover', async (t) => {
  const call = async (id: number, args: Record<string, unknown>): Promise<{ structuredContent?: Window, isError?: boolean, content: Array<{ text: string }> }> => {
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'getBookCover', arguments: args } } })
    return res.json().result
  }
  const parts: Buffer[] = []
  let window: Window | undefined
  for (let offset = 0, id = 1; window?.has_more !== false; offset = window.next_offset, id++) {
    window = (await call(id, { id: 3, offset, max_bytes: 2000 })).structuredContent as Window
    const http = await app.inject({ url: `/books/3/cover?offset=${offset}&max_bytes=2000`, headers: AGENT })
    t.strictSame(window, http.json(), 'the HTTP agent variant\'s window')
    parts.push(Buffer.from(window.content, 'base64'))
  }
  t.strictSame(Buffer.concat(parts), coverImage(3))
  const refused = await call(99, { id: 3, max_bytes: 5000 })
  t.equal(refused.isError, true)
  t.match(refused.content[0].text, /max_bytes: Must be <= 4096\./)
})

t.test('a byte mount whose argument is named like a window parameter is refused; so is a ceiling below 4', async (t) => {
  const mount = { kind: 'bytes', name: 'readBlob', url: '/blob', summary: 'A blob', mediaType: 'image/png', source: { open: async () => undefined }, permissions: [unrestricted] } as const
  t.throws(() => compileMount({ ...mount, arguments: Type.Object({ offset: Type.Integer() }) }, { timeZone: 'UTC' }), new MountError('Route \'readBlob\': offset is a parameter of its paging style; name the argument otherwise.'))
  t.throws(() => compileMount({ ...mount, paging: { style: 'bytes', ceiling: 2 } }, { timeZone: 'UTC' }), /ceiling must be at least 4/)
})
