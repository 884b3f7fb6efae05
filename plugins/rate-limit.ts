// Per-caller rate limits: each bearer key (by its fingerprint), each token's subject (by a fingerprint
// of its issuer and subject, whichever token it comes with), or each address on open routes, may
// make `max` requests per window; beyond, a 429 problem with Retry-After. Counters live in this
// process unless a shared store is passed, so that replicas share one budget (e.g. Redis).
import fastifyRateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'
import { callerOf } from '../src/http/caller.js'
import { callerNoun } from '../src/permissions.js'

export interface RateLimitOptions extends Pick<RateLimitPluginOptions, 'store' | 'redis' | 'nameSpace' | 'skipOnError'> {
  /** Requests per window for one key or one address; 0 turns the limit off. */
  max: number
  /** The window, in seconds. */
  windowSeconds: number
}

async function rateLimit (app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const { max, windowSeconds, ...shared } = options
  if (max === 0) return
  await app.register(fastifyRateLimit, {
    ...shared,
    max,
    timeWindow: windowSeconds * 1000,
    // Added to each route as a route hook, and Fastify runs those after every global onRequest
    // hook: by then auth has named the caller, and a request it refused has cost no budget.
    hook: 'onRequest',
    keyGenerator: callerOf,
    errorResponseBuilder: function tooMany (request, context) {
      // The plugin adds Retry-After itself; no ban is configured, so the status is always 429.
      return problem('AG_RATE_LIMITED',
        `Too many requests: this ${request.principal === undefined ? 'address' : callerNoun(request.principal)} may make ${context.max} ` +
        `per ${windowSeconds} s. Retry after ${Math.ceil(context.ttl / 1000)} s.`
      )
    }
  })
}

export default fp(rateLimit, { name: 'rate-limit', dependencies: ['auth'] })
