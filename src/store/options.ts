// What every store accepts, whatever its dialect.
import type { LogConfig } from 'kysely'

/** How long a query waits for a connection to come free before the store answers unavailable. */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 3000

export interface StoreOptions {
  /** Told the SQL of every query the store runs (for debugging and for tests that count queries). */
  onQuery?: (sql: string) => void
  /**
   * Told when an idle pooled connection fails (a PostgreSQL server restarting, a network cut): the
   * pool drops it and opens another when one is needed. SQLite has no pool and never calls it.
   */
  onConnectionError?: (error: Error) => void
  /**
   * How long a query may wait for a connection (PostgreSQL: a pooled one, opened if need be;
   * SQLite: a reader for a whole list, then the file's lock) before it fails as unavailable, a 503
   * the client may retry.
   * Default DEFAULT_ACQUIRE_TIMEOUT_MS.
   */
  acquireTimeoutMs?: number
  /** Told whether each total came from the count cache (`hit`) or was counted (`miss`): metrics. */
  onCount?: (outcome: 'hit' | 'miss') => void
  /** Told things worth a line in the log that are not failures of a request (a fallback taken). */
  onNotice?: (message: string, detail: Record<string, unknown>) => void
}

export function queryLogger ({ onQuery }: StoreOptions): LogConfig | undefined {
  if (onQuery === undefined) return undefined
  return (event) => { if (event.level === 'query') onQuery(event.query.sql) }
}
