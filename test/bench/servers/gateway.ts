// The gateway as it ships (demo/app.ts, every plugin and route), plus one bench-only mount of the
// same book list whose source counts on every request, to show what the count cache is worth.
// Tracing is on when the OTEL_* variables of its process ask for it, as in src/server.ts.
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import app from '../../../demo/app.js'
import { signedIn } from '../../../src/permissions.js'
import { kyselySource } from '../../../src/sources/index.js'
import { startTracing } from '../../../src/observe/tracing.js'
import { Book } from '../../../routes/books/book.js'
import { timeHooks } from './hook-times.js'
import { BENCH_LOGGER, type ServerOptions } from './options.js'
import { catalogue, MAX_PAGE_SIZE } from './queries.js'

export const UNCACHED_URL = '/bench/books-uncached'
const UNREACHED_RATE_LIMIT = 1_000_000_000
const UNREACHED_EVENT_LOOP_DELAY_MS = 600_000

export async function gatewayServer ({ databasePath, key, timeZone, responseCacheBytes }: ServerOptions): Promise<FastifyInstance> {
  const server = Fastify({ logger: BENCH_LOGGER })
  // As src/server.ts does: a tracer provider only when OTEL_* asks for one (the tracing scenario's).
  const traces = await startTracing(process.env, 'bench')
  // The hooks scenario's: each hook timed (servers/hook-times.ts).
  if (process.env.BENCH_HOOK_TIMES === '1') timeHooks(server)
  // Unencapsulated, as the tests register it, so the bench mount reaches `mount` and `store`. Every
  // plugin runs as shipped; the rate limit and the load shedder only get ceilings the bench never
  // reaches (their checks still run): a COUNT of a million rows or a deep OFFSET blocks the event
  // loop for tens of milliseconds, and queued behind each other on a busy machine they would be shed.
  // Its one key streams a list on every connection at once: no bound on streams per client.
  await server.register(fp(app), {
    databaseUrl: databasePath,
    timeZone,
    apiKeys: [key],
    rateLimitMax: UNREACHED_RATE_LIMIT,
    streamsPerClient: 0,
    loadShedding: { maxEventLoopDelay: UNREACHED_EVENT_LOOP_DELAY_MS },
    tracing: traces !== undefined,
    responseCacheBytes
  })
  server.mount({
    kind: 'list',
    name: 'benchListBooksUncached',
    url: UNCACHED_URL,
    summary: 'The book list, counted on every request',
    declaration: Book,
    source: kyselySource(server.store, () => catalogue(server.store.db), { countCache: false }),
    permissions: [signedIn],
    paging: { style: 'page', ceiling: MAX_PAGE_SIZE }
  })
  return server
}
