// What every store accepts, whatever its dialect.
import type { LogConfig } from 'kysely'

export interface StoreOptions {
  /** Told the SQL of every query the store runs (for debugging and for tests that count queries). */
  onQuery?: (sql: string) => void
  /**
   * Told when an idle pooled connection fails (a PostgreSQL server restarting, a network cut): the
   * pool drops it and opens another when one is needed. SQLite has no pool and never calls it.
   */
  onConnectionError?: (error: Error) => void
}

export function queryLogger ({ onQuery }: StoreOptions): LogConfig | undefined {
  if (onQuery === undefined) return undefined
  return (event) => { if (event.level === 'query') onQuery(event.query.sql) }
}
