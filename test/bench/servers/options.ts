// What every server under test is started with.

export interface ServerOptions {
  /** The store to serve: a SQLite file, or a postgres:// URL (BENCH_STORE=postgres). */
  readonly databasePath: string
  /** The one bearer key accepted. */
  readonly key: string
  /** The gateway's TIME_ZONE, and the zone the speed route renders in (BENCH_TIME_ZONE, default UTC). */
  readonly timeZone: string
  /** The gateway's kept answers, in bytes (RESPONSE_CACHE_MB, as the server reads it; default the gateway's own). */
  readonly responseCacheBytes?: number
}

/** What a scenario measuring the work of a request starts the gateway with: every answer read again. */
export const FLOW_ONLY = { RESPONSE_CACHE_MB: '0' } as const

/**
 * The logger of every Fastify server under test, the gateway's and the hand-written alike: errors
 * only, so a failing request says why on the suite's output. The same for all, because a logger
 * costs Fastify a child logger per request, which is the framework's cost, not the gateway's.
 */
export const BENCH_LOGGER = { level: 'error' } as const
