// The Redis that replicas share state through (rate-limit budgets, counted totals, the keys of
// upstream actions' calls) when REDIS_URL is set. The gateway starts and serves while Redis is out
// of reach: limits go unenforced and totals are counted in process; only a call with an
// Idempotency-Key to an upstream action is refused (503), since its key must not be dropped. Each
// change of state is logged once.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Redis, RedisOptions as ClientOptions } from 'ioredis'

declare module 'fastify' {
  interface FastifyInstance {
    /** The shared Redis, or undefined when REDIS_URL is unset and state stays in this process. */
    redis: Redis | undefined
  }
}

export interface RedisOptions {
  /** `redis://` or `rediss://`; `?keyPrefix=name:` keeps deployments sharing one Redis apart. */
  url?: string
}

/** Keys are prefixed with this unless the URL's `keyPrefix` says otherwise. */
export const DEFAULT_KEY_PREFIX = 'audience-gateway:'

/**
 * Fail fast, never queue: a command on a Redis that is down fails at once, one that hangs fails
 * after half a second, and the request goes on without it. The client reconnects by itself.
 */
export const CLIENT_OPTIONS: ClientOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  commandTimeout: 500,
  // A Redis that accepts connections and never answers (stalled, or gone behind a half-open
  // connection) only times commands out, which the rate limit serves through uncounted: no error,
  // no log. Half a second without a byte while a command waits makes the client drop the connection
  // instead: an 'error', logged once below; and it reconnects, 'ready' once Redis answers again.
  // Meanwhile commands fail at once rather than each waiting out commandTimeout. (No command the
  // gateway sends blocks on the server, so a healthy Redis is never that quiet.)
  socketTimeout: 500,
  keyPrefix: DEFAULT_KEY_PREFIX
}

async function redis (app: FastifyInstance, options: RedisOptions): Promise<void> {
  if (options.url === undefined) {
    app.decorate('redis', undefined)
    return
  }
  // Loaded only when configured: a gateway without Redis never needs the client's modules.
  const { Redis } = await import('ioredis')
  // The URL's own options (keyPrefix, db, credentials) win over these defaults.
  const client = new Redis(options.url, CLIENT_OPTIONS)
  let reachable: boolean | undefined
  // The client reports each failed attempt while it retries: only the change is worth a line.
  client.on('error', (err: Error) => {
    if (reachable === false) return
    reachable = false
    app.log.warn({ err }, 'Redis out of reach or not answering: rate limits are not enforced, totals are counted in this process and keyed calls of upstream actions are refused until it is back')
  })
  client.on('ready', () => {
    if (reachable === false) app.log.info('Redis reachable again: rate limits and totals are shared again')
    reachable = true
  })
  app.decorate('redis', client)
  app.addHook('onClose', async () => {
    // QUIT lets replies in flight arrive; a Redis that is out of reach gets none, and is left at once.
    await client.quit().catch(() => { client.disconnect() })
  })
  // A Redis out of reach at start is not a failed start: the error is logged above, and the client retries.
  await client.connect().catch(() => {})
}

export default fp(redis, { name: 'redis' })
