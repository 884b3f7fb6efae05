// A whole list holds one of the store's few readers (a SQLite reader, a pooled PostgreSQL
// connection) for as long as its client reads it. One client alone, opening list after list and
// reading none, would hold them all and leave every other client a 503: so one client (whoever the
// transport names: a key, an address) holds at most `most` at once. Its next list waits for one of
// its own to end, no longer than `waitMs` (a client asking for a few lists at once has each in
// turn), then is refused: its own doing, a 429, while the others are served. A list counts from its
// first read, waiting for a reader included, to its end, its reader's release included.
import type { SelectQueryBuilder } from 'kysely'
import { problem } from '../core/errors.js'
import { semaphore, type Semaphore } from './semaphore.js'
import type { Store } from './store.js'

/** Whole lists one client may stream at once: a quarter of the SQLite readers (8), a fifth of PostgreSQL's pool (10). */
export const DEFAULT_STREAMS_PER_CLIENT = 2

/**
 * `stream`, holding at most `most` streams at once for one client (0: no bound), the next waiting
 * for one of them at most `waitMs`. A stream named for no client is not counted.
 */
export function perClient (stream: Store['stream'], most: number, waitMs: number): Store['stream'] {
  if (!Number.isSafeInteger(most) || most < 0) throw new RangeError(`streamsPerClient must be a whole number (0: no bound); got ${most}.`)
  if (most === 0) return stream
  // A client's share, while it streams or waits to; forgotten once it does neither.
  const shares = new Map<string, Semaphore>()
  return async function * counted<Row> (query: SelectQueryBuilder<any, any, Row>, chunkSize: number, client?: string): AsyncGenerator<Row[]> {
    if (client === undefined) {
      yield * stream(query, chunkSize)
      return
    }
    const share = shares.get(client) ?? semaphore(most)
    shares.set(client, share)
    if (!await share.acquire(waitMs)) {
      throw problem('AG_TOO_MANY_STREAMS', `This caller (its key, or its address where it sends none) is already streaming ${most} whole ${most === 1 ? 'list' : 'lists'}, as many as one caller may at once, and none ended within ${waitMs} ms: read one to its end or close it, then retry.`)
    }
    try {
      yield * stream(query, chunkSize)
    } finally {
      share.release()
      const { inUse, waiting } = share.use()
      if (inUse === 0 && waiting === 0) shares.delete(client)
    }
  }
}
