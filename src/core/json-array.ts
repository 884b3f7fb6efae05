// The plain list: a bare JSON array written row by row as the source yields them, so memory
// stays flat however long the list is.
import { Readable } from 'node:stream'
import { setImmediate as turn } from 'node:timers/promises'

/** Rows serialized together per chunk: fewer, larger writes without holding the list. */
const CHUNK_BYTES = 64 * 1024

/**
 * Reads the first row before anything is sent, so a store that fails fails the request with a
 * proper error status; later failures can only cut the stream short.
 */
export async function jsonArrayStream<Row> (rows: AsyncIterable<Row>, serialize: (row: Row) => string): Promise<Readable> {
  const source = owned(rows)
  const first = await source.next()
  const generator = chunks(first, source, serialize)
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

/** The rows as an async generator: one that can always be closed, whatever iterator lies beneath. */
async function * owned<Row> (rows: AsyncIterable<Row>): AsyncGenerator<Row, void, undefined> {
  yield * rows
}

async function * chunks<Row> (first: IteratorResult<Row>, rest: AsyncGenerator<Row, void, undefined>, serialize: (row: Row) => string): AsyncGenerator<string> {
  if (first.done === true) {
    yield '[]'
    return
  }
  let chunk = '[' + serialize(first.value)
  // `for await` closes the source when this ends early (a serializer throwing, a client hanging up).
  for await (const row of rest) {
    chunk += ',' + serialize(row)
    if (chunk.length >= CHUNK_BYTES) {
      yield chunk
      chunk = ''
      // A store read row by row and a loopback socket that never pushes back would otherwise make
      // the whole list one unbroken run of microtasks: no other request, nor the load shedder's
      // clock, would get the event loop until the last row.
      await turn()
    }
  }
  yield chunk + ']'
}
