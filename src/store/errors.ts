// Which failures mean "the store is out of reach for now" (a 503 that the client may retry), as
// opposed to a defect (a 500). One list for every dialect, so a new one only adds its codes here.

/** SQLite result codes (better-sqlite3's `code`), extended codes included: `SQLITE_IOERR_READ`. */
const SQLITE_UNAVAILABLE = /^SQLITE_(?:BUSY|LOCKED|CANTOPEN|IOERR|CORRUPT|NOTADB|PROTOCOL)(?:_|$)/

/** Connection failures from the network, e.g. a PostgreSQL server that is down or restarting. */
const NETWORK_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (shut down, crashed, not yet
 * accepting connections), 53300 (too many connections).
 */
const POSTGRES_UNAVAILABLE = /^(?:08[0-9A-Z]{3}|57P0[123]|53300)$/

/**
 * Said by better-sqlite3 and by kysely once the connection is closed; by pg's pool when no connection
 * came free within its `connectionTimeoutMillis`, and by pg when a server took a connection and never
 * answered within it, or closed it.
 */
const UNAVAILABLE_MESSAGES = new Set([
  'The database connection is not open',
  'driver has already been destroyed',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly'
])

/** The gateway's own word for it: no connection came free in time, the file is not the one configured. */
export const STORE_UNAVAILABLE_CODE = 'ERR_STORE_UNAVAILABLE'

/** A failure the gateway finds itself that means the store cannot answer right now (a 503). */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
  readonly code = STORE_UNAVAILABLE_CODE
}

/** A SQLite path that names no file, where the store was not asked to create one: nothing is made by mistake. */
export class MissingDatabaseError extends Error {
  override name = 'MissingDatabaseError'

  constructor (readonly path: string) {
    super(`The SQLite file ${path} does not exist, and the store was not asked to create it.`)
  }
}

/** True when `error` says the store cannot answer right now, whatever the store. */
export function isStoreUnavailable (error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message, errors, cause } = error as { code?: unknown, message?: unknown, errors?: unknown, cause?: unknown }
  if (code === STORE_UNAVAILABLE_CODE) return true
  if (typeof code === 'string' && (SQLITE_UNAVAILABLE.test(code) || NETWORK_UNAVAILABLE.has(code) || POSTGRES_UNAVAILABLE.test(code))) return true
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.has(message)) return true
  // A connection tried on several addresses fails with each (AggregateError); a wrapper keeps its cause.
  if (Array.isArray(errors) && errors.some(isStoreUnavailable)) return true
  return isStoreUnavailable(cause)
}
