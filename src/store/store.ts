// What a source needs of a database, decided once when it is opened: the kysely instance, which
// kind of database it is, how a whole list is streamed, the version of its data and where totals
// are remembered. Sources receive it; nothing guesses it again.
import type { Kysely, SelectQueryBuilder } from 'kysely'
import type { CountCache } from './count-cache.js'
import type { Read } from './direct-reads.js'

export const STORE_KINDS = ['sqlite', 'postgres'] as const
export type StoreKind = typeof STORE_KINDS[number]

/** Connections in use and queries waiting for one, at one moment. */
export interface ReaderUse {
  readonly inUse: number
  readonly waiting: number
}

/**
 * The tables `app.store` reads, as kysely types them: empty here, and filled in by the project that
 * serves them, by declaration merging (docs/your-own-resource.md):
 * `declare module 'audience-gateway' { interface GatewayDatabase { tasks: TaskTable } }`.
 */
export interface GatewayDatabase {}

export interface Store<DB = GatewayDatabase> {
  readonly db: Kysely<DB>
  readonly kind: StoreKind
  /** The rows a compiled select reads: on SQLite at once, while kysely holds no connection (direct-reads.ts); on PostgreSQL through kysely. */
  read: Read
  /**
   * Every row `query` selects, in order, in batches of about `chunkSize` rows, each read at once (on a
   * connection of its own where one is needed). A `client` (whoever the transport names: a key, an
   * address) streams only so many at once (per-client.ts): its next waits for one of them a bounded
   * time, then fails AG_TOO_MANY_STREAMS.
   */
  stream: <Row>(query: SelectQueryBuilder<any, any, Row>, chunkSize: number, client?: string) => AsyncIterable<Row[]>
  /** A value that changes whenever the data may have changed; O(1). */
  dataVersion: () => Promise<string>
  /**
   * The data version, named so that it means one state of the data wherever it is compared: a
   * SQLite version is this opening's own (its counters are one connection's), a PostgreSQL one the
   * cluster's (its snapshots are every connection's). What a plain list's validator is made of.
   */
  versionTag: () => Promise<string>
  /** Where totals are remembered while the data is unchanged; shared by replicas when configured. */
  readonly counts: CountCache
  /** How many connections (SQLite: whole-list readers) are in use and how many queries wait for one, now: read by metrics. */
  readers: () => ReaderUse
  /** Resolves when the store answers a read of its own data (readiness), rejects otherwise. */
  probe: () => Promise<void>
  /** Waits for a connection still held by a stream, then closes every connection. */
  close: () => Promise<void>
}
