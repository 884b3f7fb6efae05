// Streams read on connections of their own. SQLite's kysely dialect has one connection, held by a
// stream from its first row to its last: a plain client reading a long list slowly (or not at all)
// would stall every other request of the process for as long. Each stream here opens a read-only
// connection to the same file (`open`, from sqlite.ts), reads one consistent snapshot on it (WAL lets readers and the
// writer go on side by side) and closes it when the stream ends, is closed early, or fails.
import type SQLite from 'better-sqlite3'
import type { CompiledQuery } from 'kysely'
import type { StoreOptions } from './options.js'

/** Streams reading at once; more wait for one to end (a wait holds nothing). */
export const DEFAULT_MAX_READERS = 8

export interface SqliteReadersOptions extends Pick<StoreOptions, 'onQuery'> {
  maxReaders?: number
  /** Told each time a stream has to wait for a reader, all `maxReaders` being in use (tests observe the wait). */
  onWait?: () => void
}

/** Where whole-list reads run: each on a connection of its own. */
export interface StreamReader {
  stream: <Row>(query: CompiledQuery<Row>) => AsyncIterable<Row>
}

export function sqliteReaders (open: () => SQLite.Database, options: SqliteReadersOptions = {}): StreamReader {
  const slots = semaphore(options.maxReaders ?? DEFAULT_MAX_READERS, options.onWait)
  return {
    stream: async function * stream<Row> (query: CompiledQuery<Row>): AsyncGenerator<Row> {
      await slots.acquire()
      let reader: SQLite.Database | undefined
      try {
        reader = open()
        options.onQuery?.(query.sql)
        // `for...of` ends the statement's iteration however this generator ends, before the close.
        for (const row of reader.prepare(query.sql).iterate(query.parameters as unknown[])) yield row as Row
      } finally {
        reader?.close()
        slots.release()
      }
    }
  }
}

interface Semaphore {
  acquire: () => Promise<void>
  release: () => void
}

function semaphore (size: number, onWait?: () => void): Semaphore {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`maxReaders must be a positive integer; got ${size}.`)
  let free = size
  const waiting: Array<() => void> = []
  return {
    acquire: async () => {
      if (free > 0) {
        free--
        return
      }
      onWait?.()
      await new Promise<void>((resolve) => { waiting.push(resolve) })
    },
    // A freed slot goes straight to the longest waiter, so none can be overtaken.
    release: () => {
      const next = waiting.shift()
      if (next === undefined) free++
      else next()
    }
  }
}
