// Generated (offset, max_bytes, range) triples against a reference slice: an agent's window is the
// slice it says it is (as text or base64), a walk by next_offset reassembles the content exactly,
// and a plain client's Range gets the slice RFC 9110 names (206), the 416, or the whole 200. Every
// body is checked against the schema the document publishes for it.
import fc from 'fast-check'
import Fastify from 'fastify'
import t from 'tap'
import Type from 'typebox'
import { bufferContent, gateway, serverOptions, unrestricted, type ByteSource } from '../../src/index.js'
import { documentedResponses, mediaTypeOf, type OpenApiDocument } from '../helpers/openapi.js'
import { propertyRuns, propertySeed } from '../helpers/fast-check.js'

const CEILING = 64
const SEED = propertySeed(7_2026)
const NUM_RUNS = propertyRuns(150)

t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs of the first property (FC_RUNS)`)

/** Content by id: 1 is bytes (base64 to an agent), 2 is UTF-8 text of every width of character. */
const contents = new Map<number, Buffer>()
const source: ByteSource<{ id: number }> = {
  open: async ({ id }) => {
    const held = contents.get(id)
    return held === undefined ? undefined : bufferContent(held)
  }
}

const app = Fastify({ ...serverOptions('silent'), logger: false })
t.teardown(() => app.close())
// A walk makes up to 50 requests a run, over a thousand in all: more than the default rate limit
// allows a client in a minute. Neither rate limits nor a busy test process's lag are tested here.
await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [], rateLimitMax: 0, loadShedding: { maxEventLoopDelay: 0 } })
await app.register(async (scope) => {
  for (const [url, mediaType] of [['/blobs/:id', 'application/octet-stream'], ['/texts/:id', 'text/plain; charset=utf-8']] as const) {
    scope.mount({
      kind: 'bytes',
      name: url.startsWith('/blobs') ? 'getBlob' : 'getText',
      url,
      summary: 'Content',
      params: Type.Object({ id: Type.Integer() }),
      source,
      mediaType,
      permissions: [unrestricted],
      paging: { style: 'bytes', ceiling: CEILING, defaultBytes: 16 }
    })
  }
})
await app.ready()
const documented = documentedResponses(app.swagger() as unknown as OpenApiDocument)

interface Window { content: string, encoding: string, offset: number, returned: number, total_bytes: number, has_more: boolean, next_offset: number, hint?: string }

async function get (url: string, headers: Record<string, string> = {}): Promise<{ status: number, headers: Record<string, unknown>, body: Buffer, json: () => any }> {
  const res = await app.inject({ url, headers })
  const mediaType = mediaTypeOf(res.headers['content-type'])
  const validate = documented.validator(url.replace(/\/\d+(\?.*)?$/, '/{id}'), 'get', res.statusCode, mediaType)
  const body = mediaType.endsWith('json') ? res.json() : res.body
  if (validate === undefined || !validate(body)) throw new Error(`${url} ${res.statusCode}: not as published: ${JSON.stringify(validate?.errors)}`)
  return { status: res.statusCode, headers: res.headers, body: res.rawPayload, json: () => res.json() }
}

const AGENT = { 'x-audience': 'agent' }
const text = fc.string({ unit: 'grapheme', maxLength: 60 })
const blob = fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes))

/** The bytes a window served, as the envelope carries them. */
function servedBytes (window: Window): Buffer {
  return Buffer.from(window.content, window.encoding === 'base64' ? 'base64' : 'utf8')
}

t.test('an agent\'s window is the reference slice from its offset, of at most max_bytes', async (t) => {
  await fc.assert(fc.asyncProperty(fc.boolean(), blob, text, fc.nat(260), fc.integer({ min: 4, max: CEILING }), async (isText, bytes, words, offset, max) => {
    const content = isText ? Buffer.from(words, 'utf8') : bytes
    contents.set(7, content)
    const start = Math.min(offset, content.length)
    // A text window may not start inside a character.
    if (isText && start < content.length && (content[start] & 0xc0) === 0x80) {
      return (await get(`/texts/7?offset=${offset}&max_bytes=${max}`, AGENT)).status === 400
    }
    const window: Window = (await get(`/${isText ? 'texts' : 'blobs'}/7?offset=${offset}&max_bytes=${max}`, AGENT)).json()
    const served = servedBytes(window)
    const left = content.length - start
    // Bytes fill the window; a text's may hold up to 3 fewer, never cutting a character.
    const size = isText ? window.returned <= Math.min(max, left) && window.returned >= Math.min(max - 3, left) : window.returned === Math.min(max, left)
    return size && served.equals(content.subarray(start, start + window.returned)) &&
      window.offset === offset && window.total_bytes === content.length &&
      window.next_offset === start + window.returned && window.has_more === (window.next_offset < content.length) &&
      ('hint' in window) === window.has_more
  }), { seed: SEED, numRuns: NUM_RUNS })
  // fc.assert throws on a counterexample; this says it held, so the test is counted as run.
  t.pass('held for every input drawn')
})

t.test('a walk by next_offset reassembles the content exactly, text or bytes', async (t) => {
  await fc.assert(fc.asyncProperty(fc.boolean(), blob, text, fc.integer({ min: 4, max: CEILING }), async (isText, bytes, words, max) => {
    const content = isText ? Buffer.from(words, 'utf8') : bytes
    contents.set(8, content)
    const parts: Buffer[] = []
    let window: Window | undefined
    for (let offset = 0; window?.has_more !== false; offset = window.next_offset) {
      window = (await get(`/${isText ? 'texts' : 'blobs'}/8?offset=${offset}&max_bytes=${max}`, AGENT)).json() as Window
      if (window.has_more && window.returned === 0) return false
      parts.push(servedBytes(window))
    }
    return Buffer.concat(parts).equals(content) && window.next_offset === content.length
  }), { seed: SEED, numRuns: Math.ceil(NUM_RUNS * 2 / 3) })
  // fc.assert throws on a counterexample; this says it held, so the test is counted as run.
  t.pass('held for every input drawn')
})

t.test('a Range gets the slice RFC 9110 names, a 416 past the end, the whole content otherwise', async (t) => {
  const range = fc.oneof(
    fc.tuple(fc.nat(250), fc.option(fc.nat(250))).map(([first, last]) => ({ header: `bytes=${first}-${last ?? ''}`, first, last: last ?? undefined, suffix: undefined })),
    fc.nat(250).map((suffix) => ({ header: `bytes=-${suffix}`, first: undefined, last: undefined, suffix }))
  )
  await fc.assert(fc.asyncProperty(blob, range, async (content, { header, first, last, suffix }) => {
    contents.set(9, content)
    const res = await get('/blobs/9', { range: header })
    const length = content.length
    let expected: { status: number, start?: number, end?: number }
    if (suffix !== undefined) expected = suffix === 0 || length === 0 ? { status: 416 } : { status: 206, start: Math.max(0, length - suffix), end: length - 1 }
    else if (last !== undefined && last < (first as number)) expected = { status: 200 }
    else if ((first as number) >= length) expected = { status: 416 }
    else expected = { status: 206, start: first, end: Math.min(last ?? Infinity, length - 1) }
    if (res.status !== expected.status) return false
    if (expected.status === 416) return res.headers['content-range'] === `bytes */${length}`
    if (expected.status === 200) return res.body.equals(content) && !('content-range' in res.headers)
    const { start, end } = expected as { start: number, end: number }
    return res.body.equals(content.subarray(start, end + 1)) && res.headers['content-range'] === `bytes ${start}-${end}/${length}`
  }), { seed: SEED, numRuns: Math.ceil(NUM_RUNS * 4 / 3) })
  // fc.assert throws on a counterexample; this says it held, so the test is counted as run.
  t.pass('held for every input drawn')
})
