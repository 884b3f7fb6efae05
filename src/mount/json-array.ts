// The plain list: a bare JSON array written row by row as the source yields them, so memory
// stays flat however long the list is.
import { Readable } from 'node:stream'

/** Rows serialized together per chunk: fewer, larger writes without holding the list. */
const CHUNK_BYTES = 64 * 1024

/**
 * Reads the first row before anything is sent, so a store that fails fails the request with a
 * proper error status; later failures can only cut the stream short.
 */
export async function jsonArrayStream<Row> (rows: AsyncIterable<Row>, serialize: (row: Row) => string): Promise<Readable> {
  const iterator = rows[Symbol.asyncIterator]()
  const first = await iterator.next()
  return Readable.from(chunks(first, iterator, serialize), { objectMode: false })
}

async function * chunks<Row> (first: IteratorResult<Row>, rest: AsyncIterator<Row>, serialize: (row: Row) => string): AsyncGenerator<string> {
  if (first.done === true) {
    yield '[]'
    return
  }
  let chunk = '[' + serialize(first.value)
  for (let next = await rest.next(); next.done !== true; next = await rest.next()) {
    chunk += ',' + serialize(next.value)
    if (chunk.length >= CHUNK_BYTES) {
      yield chunk
      chunk = ''
    }
  }
  yield chunk + ']'
}
