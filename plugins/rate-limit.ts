// Per-caller rate limits: each bearer key (by its fingerprint), each token's subject (by a fingerprint
// of its issuer and subject, whichever token it comes with), or each address on open routes, may
// make `max` requests per window; beyond, a 429 problem with Retry-After. Counters live in this
// process, or in Redis when one is given, so that replicas share one budget.
//
// The counting is @fastify/rate-limit's: its two stores, a fixed window per caller in an LRU map or
// in one Redis Lua script. The hook is ours. The plugin's own is asynchronous throughout (a promise
// around the store's callback, an await on the caller's key, the route's options built again to
// look for a group), which cost 15 to 30 µs of every request; this one calls `done` from the store's
// callback, at once when the store is in this process (3.7 to 6.4 µs: docs/performance.md).
import type { FastifyRateLimitStore } from '@fastify/rate-limit'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { problem } from '../src/core/errors.js'
import { callerOf } from '../src/http/caller.js'
import { callerNoun } from '../src/permissions.js'

export interface RateLimitOptions {
  /** Requests per window for one caller; 0 turns the limit off. */
  max: number
  /** The window, in seconds. */
  windowSeconds: number
  /** The Redis replicas share budgets through; without one, budgets live in this process. */
  redis?: Redis
  /** Prefixed to every budget's key in Redis. */
  nameSpace?: string
  /** Where budgets are counted instead (a test's), when neither of the above is wanted. */
  store?: Budgets
}

/** What the limit needs of a store: one more request counted in a caller's window. */
export type Budgets = Pick<FastifyRateLimitStore, 'incr'>

/**
 * What a route may say in `config.rateLimit`: `false`, not counted (health probes, metrics); or the
 * hook that counts it (`preHandler`, once its body is read) and a `groupId`, a budget of its own
 * beside the one every other route shares (MCP's).
 */
const SETTINGS: ReadonlySet<string> = new Set(['hook', 'groupId'])
const HOOKS: ReadonlySet<string> = new Set(['onRequest', 'preHandler'])

async function rateLimit (app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const { max, windowSeconds } = options
  if (max === 0) return
  const windowMs = windowSeconds * 1000
  const budgets = options.store ?? (options.redis === undefined
    ? new LocalStore(false, false)
    : new RedisStore(false, false, options.redis, options.nameSpace))

  /** The hook counting a request in the budget `group` names (the shared one when undefined). */
  const counter = (group: string | undefined) => function rateLimit (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    budgets.incr(group === undefined ? callerOf(request) : `${group}:${callerOf(request)}`, function counted (error, count) {
      // A store out of reach (Redis): served, uncounted, so without the headers of a counted answer.
      if (error !== null || count === undefined) {
        done()
        return
      }
      const reset = Math.ceil(count.ttl / 1000)
      reply.header('x-ratelimit-limit', max)
      reply.header('x-ratelimit-remaining', Math.max(0, max - count.current))
      reply.header('x-ratelimit-reset', reset)
      if (count.current <= max) {
        done()
        return
      }
      reply.header('retry-after', reset)
      done(problem('AG_RATE_LIMITED',
        `Too many requests: this ${request.principal === undefined ? 'address' : callerNoun(request.principal)} may make ${max} ` +
        `per ${windowSeconds} s. Retry after ${reset} s.`
      ))
    }, windowMs, max)
  }

  const shared = counter(undefined)
  // Added to each route as a route hook, and Fastify runs those after every global onRequest
  // hook: by then auth has named the caller, and a request it refused has cost no budget.
  app.addHook('onRoute', (route: RouteOptions) => {
    const setting = route.config?.rateLimit
    if (setting === false) return
    const unknown = Object.keys(setting ?? {}).find((name) => !SETTINGS.has(name))
    if (unknown !== undefined) throw new Error(`${route.url}: config.rateLimit.${unknown} is not a setting of the gateway's rate limit (only hook and groupId are)`)
    const hook = setting?.hook ?? 'onRequest'
    if (!HOOKS.has(hook)) throw new Error(`${route.url}: config.rateLimit.hook is '${hook}'; the rate limit counts in onRequest or preHandler`)
    const counting = setting?.groupId === undefined ? shared : counter(setting.groupId)
    route[hook as 'onRequest'] = [...[route[hook as 'onRequest'] ?? []].flat(), counting]
  })
}

export default fp(rateLimit, { name: 'rate-limit', dependencies: ['auth'] })
