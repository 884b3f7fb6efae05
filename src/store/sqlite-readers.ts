// Streams read on connections of their own. SQLite's kysely dialect has one connection, held by a
// stream from its first row to its last: a plain client reading a long list slowly (or not at all)
// would stall every other request of the process for as long. Each stream here reads on a read-only
// connection to the same file (`open`, from sqlite.ts), one consistent snapshot (WAL lets readers and the
// writer go on side by side). A connection whose stream has ended is kept for the next one, with
// its prepared statements: opening one costs more than streaming a thousand rows. Between streams it
// holds no snapshot, so the next stream reads the data as it is then. A reader whose stream failed
// is closed rather than kept, and so is one opened on a file the path no longer names (`generation`).
// Readers are few (each holds a file's snapshot): a stream waits for one at most `waitMs`, then fails
// as unavailable, a 503 with Retry-After, rather than queueing behind clients that do not read.
// (Those are cut by the transport, which alone sees a socket that does not drain.)
import type SQLite from 'better-sqlite3'
import type { CompiledQuery } from 'kysely'
import { StoreUnavailableError } from './errors.js'
import { DEFAULT_ACQUIRE_TIMEOUT_MS, type StoreOptions } from './options.js'
import { semaphore } from './semaphore.js'
import type { FirstBatch } from './first-batch.js'
import { statementCache, type KeptStatement } from './statements.js'
import type { ReaderUse } from './store.js'

/** Streams reading at once; more wait for one to end (a wait holds nothing). */
export const DEFAULT_MAX_READERS = 8

export interface SqliteReadersOptions extends Pick<StoreOptions, 'onQuery'> {
  maxReaders?: number
  /** How long a stream waits for a reader before it fails as unavailable (default DEFAULT_ACQUIRE_TIMEOUT_MS). */
  waitMs?: number
  /** Told each time a stream has to wait for a reader, all `maxReaders` being in use (tests observe the wait). */
  onWait?: () => void
  /** Which file the path names now (sqlite-file.ts counts the reopenings): a reader kept from an earlier one is closed, not used. */
  generation?: () => number
}

/** Where whole-list reads run: each on a connection of its own. */
export interface StreamReader {
  /**
   * The rows of `query`, in batches of `chunkSize`, each read at once (a statement's steps cost
   * microseconds). Given `split` (the same rows as its first batch and the rest), the first batch
   * is one statement run whole, and only a longer list reads the rest a row at a time.
   */
  stream: <Row>(query: CompiledQuery<Row>, chunkSize: number, split?: FirstBatch<Row>) => AsyncIterable<Row[]>
  /** Readers in use and streams waiting for one, now. */
  use: () => ReaderUse
  /** Closes the readers kept between streams; one still streaming is closed when its stream ends. */
  close: () => void
}

/** A reader kept between streams, and the file it was opened on. */
interface Kept {
  readonly connection: SQLite.Database
  readonly generation: number
}

export function sqliteReaders (open: () => SQLite.Database, options: SqliteReadersOptions = {}): StreamReader {
  const size = options.maxReaders ?? DEFAULT_MAX_READERS
  const waitMs = options.waitMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS
  const generation = options.generation ?? (() => 0)
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`maxReaders must be a positive integer; got ${size}.`)
  const slots = semaphore(size, options.onWait)
  const statements = statementCache()
  // At most one per slot: a reader is kept only by the stream that held the slot.
  const kept: Kept[] = []
  let closed = false

  /** A kept reader of the file the path names now, or a new one. */
  function reader (): Kept {
    const now = generation()
    for (let next = kept.pop(); next !== undefined; next = kept.pop()) {
      if (next.generation === now) return next
      next.connection.close()
    }
    return { connection: open(), generation: now }
  }

  return {
    use: slots.use,
    close: () => {
      closed = true
      for (const { connection } of kept.splice(0)) connection.close()
    },
    stream: async function * stream<Row> (query: CompiledQuery<Row>, chunkSize: number, split?: FirstBatch<Row>): AsyncGenerator<Row[]> {
      if (!await slots.acquire(waitMs)) throw new StoreUnavailableError(`All ${size} SQLite readers stayed busy for ${waitMs} ms.`)
      let used: Kept | undefined
      let rows: IterableIterator<unknown> | undefined
      let broken = false
      try {
        used = reader()
        const { connection } = used
        let rest = query
        if (split !== undefined) {
          // The first batch and the rest read one snapshot: a write between them changes neither.
          run(connection, 'begin')
          const first = read(connection, split.first).all(split.first.parameters as unknown[]) as Row[]
          if (first.length <= chunkSize) {
            if (first.length > 0) yield first
            return
          }
          // The extra row only told that there is a rest: the rest begins with it.
          first.length = chunkSize
          yield first
          rest = split.rest
        }
        rows = read(connection, rest).iterate(rest.parameters as unknown[])
        for (let batch = taken(rows, chunkSize); batch.length > 0; batch = taken(rows, chunkSize)) yield batch as Row[]
      } catch (error) {
        // A stream closed early by its consumer ends in `finally` alone: only a failure gets here.
        broken = true
        throw error
      } finally {
        // Ends the statement's iteration however this generator ends (a no-op once it ran out), and
        // the snapshot the first batch began, before the reader is kept or closed.
        rows?.return?.()
        if (used !== undefined) keep(used, broken || !ended(used.connection))
        slots.release()
      }
    }
  }

  /** `query`'s statement on `connection`, told to onQuery as it is run. */
  function read (connection: SQLite.Database, query: CompiledQuery): KeptStatement {
    options.onQuery?.(query.sql)
    return statements.prepare(connection, query.sql)
  }

  function run (connection: SQLite.Database, sql: string): void {
    statements.prepare(connection, sql).run([])
  }

  /** Ends the transaction a first batch began, if one is open: false when it could not be, and the connection is not to be kept. */
  function ended (connection: SQLite.Database): boolean {
    if (!connection.open || !connection.inTransaction) return true
    try {
      run(connection, 'commit')
      return true
    /* c8 ignore next 4 -- a read transaction's COMMIT fails only while one of its statements is still stepping, and the stream's was ended above */
    } catch {
      // Closed rather than kept with a snapshot open: the next stream would read old data.
      return false
    }
  }

  /** Keeps a reader for the next stream, unless the store is closing or its connection may be broken. */
  function keep (used: Kept, broken: boolean): void {
    if (closed || broken) used.connection.close()
    else kept.push(used)
  }
}

/** Up to `count` more rows of `rows`, read synchronously. */
function taken (rows: IterableIterator<unknown>, count: number): unknown[] {
  const batch: unknown[] = []
  while (batch.length < count) {
    const next = rows.next()
    if (next.done === true) break
    batch.push(next.value)
  }
  return batch
}
