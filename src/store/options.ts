// What every store accepts, whatever its dialect.
import type { LogConfig } from 'kysely'

export interface StoreOptions {
  /** Told the SQL of every query the store runs (for debugging and for tests that count queries). */
  onQuery?: (sql: string) => void
}

export function queryLogger ({ onQuery }: StoreOptions): LogConfig | undefined {
  if (onQuery === undefined) return undefined
  return (event) => { if (event.level === 'query') onQuery(event.query.sql) }
}
