import type { Readable } from 'node:stream'
import t from 'tap'
import { jsonArrayStream } from '../../../src/core/index.js'
import { CHUNK_BYTES } from '../../../src/core/json-array.js'

/** `count` rows of at least 50 characters each, written as JSON. */
const padded = (count: number): Array<{ id: number, pad: string }> => Array.from({ length: count }, (_, id) => ({ id, pad: 'x'.repeat(40) }))
/** How many padded rows fill a chunk, at least. */
const CHUNK_ROWS = Math.ceil(CHUNK_BYTES / 50)

/** `items` in batches of `size`; the batch holding index `failAt` fails instead. */
async function * rows<T> (items: readonly T[], failAt = -1, size = 1): AsyncIterable<readonly T[]> {
  for (let start = 0; start < items.length; start += size) {
    if (failAt >= start && failAt < start + size) throw new Error('store gone')
    yield items.slice(start, start + size)
  }
}

/** What a list's body holds, and in how many chunks it came: one, when it was answered whole. */
async function text (stream: AsyncIterable<Buffer | string> | Buffer): Promise<{ body: string, chunks: number }> {
  if (Buffer.isBuffer(stream)) return { body: stream.toString(), chunks: 1 }
  let body = ''
  let chunks = 0
  for await (const chunk of stream) {
    body += chunk.toString()
    chunks++
  }
  return { body, chunks }
}

/** A list's body that must be a stream (a list longer than a chunk). */
function streaming (body: Readable | Buffer): Readable {
  if (Buffer.isBuffer(body)) throw new Error('answered whole where a stream was expected')
  return body
}

t.test('an empty list is []', async (t) => {
  t.equal((await text(await jsonArrayStream(rows([]), JSON.stringify))).body, '[]')
})

t.test('rows are serialized in order into one valid array', async (t) => {
  const items = [{ a: 1 }, { a: 2 }, { a: 3 }]
  t.strictSame(JSON.parse((await text(await jsonArrayStream(rows(items), JSON.stringify))).body), items)
  t.strictSame(JSON.parse((await text(await jsonArrayStream(rows(items, -1, 2), JSON.stringify))).body), items, 'in batches of two')
})

t.test('empty batches write nothing: before the first rows, between rows, and alone', async (t) => {
  async function * batches () {
    yield []
    yield [1]
    yield []
    yield [2, 3]
    yield []
  }
  t.equal((await text(await jsonArrayStream(batches(), String))).body, '[1,2,3]')
  async function * none () { yield []; yield [] }
  t.equal((await text(await jsonArrayStream(none(), String))).body, '[]')
})

t.test('a long list is written in several chunks, never as one string', async (t) => {
  const items = padded(4 * CHUNK_ROWS)
  const { body, chunks } = await text(await jsonArrayStream(rows(items, -1, 100), JSON.stringify))
  t.ok(chunks > 3, `${chunks} chunks`)
  t.strictSame(JSON.parse(body), items)
})

t.test('a list shorter than a chunk is answered whole, one buffer; a longer one streams', async (t) => {
  const short = await jsonArrayStream(rows([{ a: 1 }, { a: 2 }], -1, 1), JSON.stringify)
  t.ok(Buffer.isBuffer(short), 'whole')
  t.equal(short.toString(), '[{"a":1},{"a":2}]')
  const long = await jsonArrayStream(rows(padded(2 * CHUNK_ROWS), -1, 100), JSON.stringify)
  t.notOk(Buffer.isBuffer(long), 'streamed')
})

t.test('a store failing on the first row fails before anything is sent', async (t) => {
  await t.rejects(jsonArrayStream(rows([1, 2], 0), String), /store gone/)
})

t.test('a store failing within the first chunk fails before anything is sent too', async (t) => {
  await t.rejects(jsonArrayStream(rows([1, 2, 3], 2), String), /store gone/)
})

t.test('a store failing past the first chunk cuts the stream with an error', async (t) => {
  const stream = await jsonArrayStream(rows(padded(3 * CHUNK_ROWS), 2 * CHUNK_ROWS, 100), JSON.stringify)
  await t.rejects(text(stream), /store gone/)
})

t.test('a stream destroyed part-way closes its source', async (t) => {
  let closed = false
  async function * rows () {
    try {
      for (let i = 0; i < 100_000; i++) yield [{ i, pad: 'x'.repeat(50) }]
    } finally {
      closed = true
    }
  }
  const stream = streaming(await jsonArrayStream(rows(), JSON.stringify))
  const reader = stream[Symbol.asyncIterator]()
  await reader.next()
  await reader.return?.()
  // The stream closes once its source has been closed (destroyed with an AbortError, which `once` would throw).
  if (!stream.closed) await new Promise((resolve) => stream.once('close', resolve))
  t.ok(closed, 'the source ran its finally: its cursor is released')
})

t.test('a long list yields the event loop between chunks', async (t) => {
  async function * rows () { for (let i = 0; i < 50_000; i += 100) yield Array.from({ length: 100 }, (_, j) => ({ i: i + j, pad: 'x'.repeat(50) })) }
  // Counts turns of the event loop, however long they take: an immediate runs once per turn.
  let turns = 0
  let counting = true
  const count = () => { if (counting) { turns++; setImmediate(count) } }
  setImmediate(count)
  const stream = await jsonArrayStream(rows(), JSON.stringify)
  let body = ''
  for await (const chunk of stream) body += chunk
  counting = false
  t.equal(JSON.parse(body).length, 50_000)
  t.ok(turns > 1, `the event loop turned while the list was written (${turns} times)`)
})

t.test('a whole list no longer than its bound is handed over once written to its end, the same text as sent', async (t) => {
  const kept: string[] = []
  const whole = { maxLength: 1_000_000, keep: (text: string) => { kept.push(text) } }
  const items = Array.from({ length: 20_000 }, (_, id) => ({ id, memo: 'x'.repeat(10) }))
  const { body, chunks } = await text(await jsonArrayStream(rows(items, -1, 1000), JSON.stringify, whole))
  t.ok(chunks > 1, 'sent in several chunks')
  t.strictSame(kept, [body])
  kept.length = 0
  t.equal((await text(await jsonArrayStream(rows([]), JSON.stringify, whole))).body, '[]')
  t.strictSame(kept, ['[]'], 'an empty list too')
})

t.test('a list past its bound, one that fails, and one cut short are never handed over', async (t) => {
  const kept: string[] = []
  const keep = (text: string): void => { kept.push(text) }
  const items = Array.from({ length: 20_000 }, (_, id) => ({ id, memo: 'x'.repeat(10) }))
  const long = await text(await jsonArrayStream(rows(items, -1, 1000), JSON.stringify, { maxLength: 100_000, keep }))
  t.ok(long.body.length > 100_000)
  await t.rejects(text(await jsonArrayStream(rows(items, 15_000, 1000), JSON.stringify, { maxLength: 1_000_000, keep })), /store gone/)
  const stream = streaming(await jsonArrayStream(rows(items, -1, 1000), JSON.stringify, { maxLength: 1_000_000, keep }))
  // One chunk read, then the stream is closed: a client gone part-way.
  const reading = stream[Symbol.asyncIterator]()
  t.equal((await reading.next()).done, false)
  await reading.return?.()
  t.strictSame(kept, [])
})
