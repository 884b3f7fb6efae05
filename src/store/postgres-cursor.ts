// Plain lists stream from PostgreSQL through a server-side cursor: DECLARE once, then FETCH a chunk
// at a time on the connection kysely holds for the stream, so a list of any length costs two chunks
// of memory (the one being written, the next one asked for ahead), and is one consistent snapshot.
// kysely's dialect takes a cursor class (usually the pg-cursor package); this one needs nothing
// beyond pg, only a pool whose clients open it. Those clients carry every statement the gateway
// sends PostgreSQL, each to pg in its callback form (resultOf, below).
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import type pg from 'pg'

/**
 * `pool` as kysely's dialect sees it: the same clients, which also open a DeclaredCursor. A client's
 * connection failing while kysely holds it is told to `onConnectionError` (see openingCursors).
 */
export function cursorPool (pool: pg.Pool, onConnectionError: (error: Error) => void): PostgresPool {
  // kysely keeps one connection object per client it is given: each client is wrapped once.
  const wrapped = new WeakMap<pg.PoolClient, HeldClient>()
  return {
    connect: async () => {
      const client = await pool.connect()
      let cursorClient = wrapped.get(client)
      if (cursorClient === undefined) {
        cursorClient = openingCursors(client, onConnectionError)
        wrapped.set(client, cursorClient)
      }
      cursorClient.held = true
      return cursorClient
    },
    end: async () => { await pool.end() }
  }
}

let declared = 0

/** A query read a chunk at a time (kysely's `cursor` option): made by kysely, opened by the client. */
export class DeclaredCursor<Row> implements PostgresCursor<Row> {
  readonly #sql: string
  readonly #parameters: unknown[]
  readonly #name = `gateway_stream_${++declared}`
  #client: pg.PoolClient | undefined
  #declared: Promise<void> | undefined
  /** Whether the cursor began the transaction it lives in, and so ends it. */
  #began = false
  /** Whether one of its statements failed, failing the transaction it lives in. */
  #failed = false
  /** The next FETCH, sent as soon as a chunk arrived: the server reads it while the chunk is written. */
  #ahead: Promise<Row[]> | undefined
  /** A FETCH returned fewer rows than asked for: nothing follows. */
  #ended = false

  constructor (sql: string, parameters: unknown[]) {
    this.#sql = sql
    this.#parameters = parameters
  }

  /** Binds the cursor to the connection it runs on; nothing is sent before the first read. */
  open (client: pg.PoolClient): this {
    this.#client = client
    return this
  }

  async read (rows: number): Promise<Row[]> {
    const client = this.#client!
    try {
      this.#declared ??= this.#declare(client)
      await this.#declared
      if (this.#ended) return []
      const fetched = await (this.#ahead ?? this.#fetch(client, rows))
      this.#ahead = undefined
      if (fetched.length < rows) this.#ended = true
      else this.#ahead = unheard(this.#fetch(client, rows))
      return fetched
    } catch (error) {
      // Known here, not from the client: pg reports a failure before the server's transaction status.
      this.#failed = true
      throw error
    }
  }

  async #fetch (client: pg.PoolClient, rows: number): Promise<Row[]> {
    return (await resultOf(client, `fetch forward ${rows} from ${this.#name}`)).rows as Row[]
  }

  /** Called by kysely, after at least one read, when the stream ends, is abandoned, or failed. */
  async close (): Promise<void> {
    const client = this.#client!
    // A FETCH asked for ahead and never read (the reader stopped early) is answered first: pg sends
    // a client's statements in order, and its failure would have failed the transaction.
    if (this.#ahead !== undefined) await this.#ahead.catch(() => { this.#failed = true })
    if (this.#began) {
      // Ending the transaction closes the cursor; a failed one can only be rolled back.
      await resultOf(client, this.#failed ? 'rollback' : 'commit')
    } else if (!this.#failed) {
      // The caller's transaction goes on without the cursor (kysely lets no other statement of the
      // transaction run mid-stream); a failed one is the caller's to roll back, cursor and all.
      await resultOf(client, `close ${this.#name}`)
    }
  }

  async #declare (client: pg.PoolClient): Promise<void> {
    // A cursor lives in a transaction: its own, unless the stream already runs in one.
    if (client.getTransactionStatus() === 'I') {
      await resultOf(client, 'begin')
      this.#began = true
    }
    await resultOf(client, `declare ${this.#name} no scroll cursor for ${this.#sql}`, this.#parameters)
  }
}

/**
 * The client as kysely uses it: queries go to pg as they are, a cursor is opened on this client.
 * The server may end its connection while kysely holds it, between two statements: a session
 * timeout (`idle_in_transaction_session_timeout` while a slow client reads a stream), an
 * administrator's `pg_terminate_backend`, the database stopped. pg tells that as an 'error' event
 * on the client, which the pool hears only while the client is idle in it; unheard, it would end
 * the process. Heard here, it fails what runs on the connection (a stream is cut at its next read),
 * and the client is destroyed when released, never handed out again.
 */
function openingCursors (client: pg.PoolClient, onConnectionError: (error: Error) => void): HeldClient {
  let broken: Error | undefined
  client.on('error', (error) => {
    broken = error
    // While the client is idle in the pool, the pool's own listener tells it.
    if (held.held) onConnectionError(error)
  })
  const held: HeldClient = {
    held: false,
    query: function query (text: string | DeclaredCursor<unknown>, parameters?: readonly unknown[]) {
      if (typeof text !== 'string') return text.open(client)
      return resultOf(client, text, parameters) as Promise<PostgresQueryResult<unknown>>
    } as PostgresPoolClient['query'],
    release: (destroy?: boolean) => {
      held.held = false
      client.release(broken ?? destroy)
    }
  }
  return held
}

/**
 * A statement's result, through pg's callback form. pg's promise form makes its query first and
 * gives it its callback afterwards; a query made that way left every result it read alive at each
 * young-generation collection, so V8 began to allocate parts of each result in the old generation
 * (allocation-site pretenuring), and the rows they held were copied and promoted at every young
 * collection, about half of all a read allocated: a 50-row page cost about a quarter more CPU. A
 * query given its callback when made leaves nothing behind (docs/performance.md).
 */
function resultOf (client: pg.PoolClient, text: string, parameters: readonly unknown[] = []): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    // As pg's promise form settles: a failure is whatever pg hands the callback first.
    client.query(text, parameters as unknown[], (error: Error | null | undefined, result: pg.QueryResult) => {
      if (error) reject(error)
      else resolve(result)
    })
  })
}

/** A client as kysely holds it, and whether it holds it now. */
interface HeldClient extends PostgresPoolClient {
  held: boolean
}

/** A FETCH that may never be read (the stream closed early): its failure is heard by close, not as an unhandled rejection. */
function unheard<Rows> (fetch: Promise<Rows>): Promise<Rows> {
  fetch.catch(() => {})
  return fetch
}
