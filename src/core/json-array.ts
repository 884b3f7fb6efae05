// The plain list: a bare JSON array written a batch of rows at a time as the source yields them,
// so memory stays flat however long the list is, and a row costs its serializer's call and little
// else (no promise, no generator step of its own). A list shorter than one chunk is sent whole.
import { Readable } from 'node:stream'
import { setImmediate as turn } from 'node:timers/promises'

/**
 * Text written per chunk: fewer, larger writes without holding the list. Large enough that the
 * demo's whole ledger (1,240 entries, 112 KB) is answered whole: a list written across turns of the
 * event loop keeps what it holds alive past the collector's young generation, and with 64 KiB
 * chunks that list cost a fifth more CPU, most of it collecting.
 */
export const CHUNK_BYTES = 256 * 1024

/** Who keeps the whole text of a list no longer than `maxLength` (UTF-16 units), once it is written to its end. */
export interface Whole {
  readonly maxLength: number
  readonly keep: (text: string) => void
}

/**
 * Reads and writes rows until their text fills a chunk (CHUNK_BYTES) or the list ends, before
 * anything is sent. A list that ends first is answered whole, as one buffer: no stream, no chunked
 * encoding, and a store failing or a row refused anywhere in it fails the request with its status.
 * A longer one streams from there, a chunk at a time, and a later failure can only cut it short.
 * A `whole` is handed the list's text once every row is written, if it is short enough: a longer
 * list stops being recorded, and one that fails or is cut short is never handed over.
 */
export async function jsonArrayStream<Row> (batches: AsyncIterable<readonly Row[]>, serialize: (row: Row) => string, whole?: Whole): Promise<Readable | Buffer> {
  const source = owned(batches)
  let opening = ''
  let ended = false
  try {
    while (opening.length < CHUNK_BYTES) {
      const next = await source.next()
      if (next.done === true) {
        ended = true
        break
      }
      if (next.value.length > 0) opening += (opening === '' ? '[' : ',') + written(next.value, serialize)
    }
  } catch (error) {
    await source.return(undefined)
    throw error
  }
  if (ended) {
    const text = opening === '' ? '[]' : opening + ']'
    if (whole !== undefined && text.length <= whole.maxLength) whole.keep(text)
    return Buffer.from(text)
  }
  const generator = whole === undefined ? chunks(opening, source, serialize) : recorded(chunks(opening, source, serialize), whole)
  const iterator: AsyncIterator<string> = {
    next: async () => await generator.next(),
    // The source is closed here too: a response closed before its first read (a client gone while
    // the store was busy) never starts the generator, and SQLite's one connection would stay held.
    return: async () => {
      await generator.return(undefined)
      await source.return(undefined)
      return { done: true, value: undefined }
    }
  }
  return Readable.from({ [Symbol.asyncIterator]: () => iterator }, { objectMode: false })
}

/** The batches as an async generator: one that can always be closed, whatever iterator lies beneath. */
async function * owned<Row> (batches: AsyncIterable<readonly Row[]>): AsyncGenerator<readonly Row[], void, undefined> {
  yield * batches
}

/** The list from its first full chunk (`opening`, begun with `[`) on, a chunk at a time, and its closing `]`. */
async function * chunks<Row> (opening: string, rest: AsyncGenerator<readonly Row[], void, undefined>, serialize: (row: Row) => string): AsyncGenerator<string> {
  let chunk = opening
  try {
    for (;;) {
      // Written before the next batch is read: the first byte leaves with the first full chunk.
      if (chunk.length >= CHUNK_BYTES) {
        yield chunk
        chunk = ''
        // A store read synchronously and a loopback socket that never pushes back would otherwise
        // make the whole list one unbroken run of microtasks: no other request, nor the load
        // shedder's clock, would get the event loop until the last row.
        await turn()
      }
      const next = await rest.next()
      if (next.done === true) break
      if (next.value.length > 0) chunk += ',' + written(next.value, serialize)
    }
  } finally {
    // Closes the source however this ends early (a serializer throwing, a client hanging up); a no-op once it ended.
    await rest.return(undefined)
  }
  yield chunk + ']'
}

/** The chunks as they are, their text recorded while it stays within `whole.maxLength`, handed over at the end. */
async function * recorded (chunked: AsyncGenerator<string>, whole: Whole): AsyncGenerator<string> {
  let parts: string[] | undefined = []
  let length = 0
  for await (const chunk of chunked) {
    length += chunk.length
    if (length > whole.maxLength) parts = undefined
    parts?.push(chunk)
    yield chunk
  }
  if (parts !== undefined) whole.keep(parts.join(''))
}

/**
 * Rows joined into one text per group: measured in the server, a batch joined whole (a thousand
 * rows, about 100 KB) cost a quarter more CPU on 10,000 books than groups of this many, and a
 * row's text added to the batch's one row at a time a few per cent more on both lists.
 */
const GROUP_ROWS = 64

/** A non-empty batch as the array's items, comma-separated. */
function written<Row> (batch: readonly Row[], serialize: (row: Row) => string): string {
  let text = ''
  for (let start = 0; start < batch.length; start += GROUP_ROWS) {
    const group = batch.slice(start, start + GROUP_ROWS).map((row) => serialize(row)).join(',')
    text = start === 0 ? group : text + ',' + group
  }
  return text
}
