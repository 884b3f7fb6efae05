// Load shedding: while the event loop lags or memory runs short, requests are refused at once with
// a 503 and Retry-After rather than queued until they time out. Liveness is always answered: a
// busy process is alive, and restarting it would only move its load elsewhere. The start itself
// (compiling every route's schemas) is not load: shedding begins once it has left the samples.
import { totalmem } from 'node:os'
import { getHeapStatistics } from 'node:v8'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: not shed before the route runs (the liveness probe; MCP, which sheds per call). */
    shed?: boolean
  }
  interface FastifyInstance {
    /** The 503 to answer now if the process is shedding load, else undefined. */
    overloaded: () => Error | undefined
  }
}

export interface LoadSheddingOptions {
  /** Mean event-loop delay over a sample, in ms, beyond which requests are shed. Default 1000. */
  maxEventLoopDelay?: number
  /** Heap in use beyond which requests are shed. Default 90% of V8's heap limit. */
  maxHeapUsedBytes?: number
  /** Resident memory beyond which requests are shed. Default 90% of the memory the process may use. */
  maxRssBytes?: number
  /** How often the process is measured, in ms. Default 1000. */
  sampleInterval?: number
  /** Told every interval whether what the gateway leans on is healthy; false sheds. */
  healthCheck?: () => Promise<boolean>
  /** The Retry-After a shed request is given, in seconds. Default 10. */
  retryAfter?: number
  /**
   * Calls `arm` once `ms` have passed since the start (by default on a timer that does not keep the
   * process alive): shedding begins then. Tests pass their own, to know or choose the moment.
   */
  armAfter?: (ms: number, arm: () => void) => void
}

const SHARE = 0.9

async function loadShedding (app: FastifyInstance, options: LoadSheddingOptions): Promise<void> {
  const retryAfter = options.retryAfter ?? 10
  const sampleInterval = options.sampleInterval ?? 1000
  const armAfter = options.armAfter ?? ((ms: number, arm: () => void) => { setTimeout(arm, ms).unref() })
  // The sample taken as the start ends measures the start; the one after it, the load.
  let armed = false
  app.addHook('onReady', async function arm () {
    armAfter(2 * sampleInterval, () => { armed = true })
  })
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelay ?? 1000,
    maxHeapUsedBytes: options.maxHeapUsedBytes ?? Math.floor(getHeapStatistics().heap_size_limit * SHARE),
    maxRssBytes: options.maxRssBytes ?? Math.floor(availableMemory() * SHARE),
    sampleInterval,
    ...(options.healthCheck === undefined ? {} : { healthCheck: options.healthCheck, healthCheckInterval: sampleInterval }),
    // Thrown, not sent: the error goes through the problems plugin like any other.
    pressureHandler: async function shed (request: FastifyRequest, _reply: FastifyReply) {
      if (!armed || request.routeOptions.config.shed === false) return
      throw refusal()
    }
  })
  const refusal = (): Error => Object.assign(problem('AG_OVERLOADED', `The server is overloaded; retry after ${retryAfter} s.`), {
    headers: { 'Retry-After': String(retryAfter) }
  })
  app.decorate('overloaded', () => armed && app.isUnderPressure() ? refusal() : undefined)
}

export default fp(loadShedding, { name: 'load-shedding' })

/** The container's memory limit when it has one, else the machine's. */
function availableMemory (): number {
  // Without a limit, Node answers 0, undefined or 2^64 depending on its version.
  return Math.min(...[Number(process.constrainedMemory()), totalmem()].filter((bytes) => bytes > 0))
}
