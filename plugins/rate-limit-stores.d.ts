// Types for the two stores @fastify/rate-limit counts in, which plugins/rate-limit.ts uses without
// the plugin's own hook. The package publishes no types for these files; their constructors are as
// the plugin itself calls them (its index.js), and both count as its FastifyRateLimitStore says.
declare module '@fastify/rate-limit/store/LocalStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit'
  /** Budgets in this process: a fixed window per key, the `cache` most recent keys kept (5,000 by default). */
  const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => FastifyRateLimitStore
  export default LocalStore
}

declare module '@fastify/rate-limit/store/RedisStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit'
  import type { Redis } from 'ioredis'
  /** Budgets in Redis, under `nameSpace`: a fixed window per key, counted and expired by one Lua script. */
  const RedisStore: new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, nameSpace?: string) => FastifyRateLimitStore
  export default RedisStore
}
