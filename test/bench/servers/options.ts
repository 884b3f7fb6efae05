// What every server under test is started with.

export interface ServerOptions {
  /** The store to serve: a SQLite file, or a postgres:// URL (BENCH_STORE=postgres). */
  readonly databasePath: string
  /** The one bearer key accepted. */
  readonly key: string
  /** The gateway's TIME_ZONE, and the zone the speed route renders in (BENCH_TIME_ZONE, default UTC). */
  readonly timeZone: string
}

/**
 * The logger of every Fastify server under test, the gateway's and the hand-written alike: errors
 * only, so a failing request says why on the suite's output. The same for all, because a logger
 * costs Fastify a child logger per request, which is the framework's cost, not the gateway's.
 */
export const BENCH_LOGGER = { level: 'error' } as const
