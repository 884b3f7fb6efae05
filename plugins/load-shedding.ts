// Load shedding: while the event loop lags or memory runs short, requests are refused at once with
// a 503 and Retry-After rather than queued until they time out. Liveness is always answered: a
// busy process is alive, and restarting it would only move its load elsewhere. The start itself
// (compiling every route's schemas) is not load: shedding begins once it has left the samples.
import { totalmem } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'
import { routeConfig } from './audience.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: not shed before the route runs (the liveness probe; MCP, which sheds per call). */
    shed?: boolean
  }
  interface FastifyInstance {
    /** The 503 to answer now if the process is shedding load, else undefined. */
    overloaded: () => Error | undefined
    /** Whether the last sample passed a threshold (or the health check failed), armed or not. */
    underPressure: () => boolean
  }
}

export interface LoadSheddingOptions {
  /** Mean event-loop delay over a sample, in ms, beyond which requests are shed. Default 1000; 0 checks none. */
  maxEventLoopDelay?: number
  /** Heap in use beyond which requests are shed. Default 90% of V8's heap limit; 0 checks none. */
  maxHeapUsedBytes?: number
  /** Resident memory beyond which requests are shed. Default 90% of the memory the process may use; 0 checks none. */
  maxRssBytes?: number
  /** How often the process is measured, in ms. Default 1000, at least 100 (see MIN_SAMPLE_INTERVAL). */
  sampleInterval?: number
  /** Told every interval whether what the gateway leans on is healthy; false (or a throw) sheds. */
  healthCheck?: () => Promise<boolean>
  /** The Retry-After a shed request is given, in seconds. Default 10. */
  retryAfter?: number
  /**
   * Calls `arm` once `ms` have passed since the start (by default on a timer that does not keep the
   * process alive): shedding begins then. Tests pass their own, to know or choose the moment.
   */
  armAfter?: (ms: number, arm: () => void) => void
  /** Told each sample as it is taken, after the health check of its interval (tests wait for it). */
  onSample?: (sample: LoadSample) => void
}

/** One measure of the process: the loop's mean delay since the last (ms), the heap in use and resident memory (bytes). */
export interface LoadSample {
  readonly delayMs: number
  readonly heapUsed: number
  readonly rss: number
  /** Whether a threshold is passed or the health check failed. */
  readonly underPressure: boolean
}

const SHARE = 0.9
/** How finely Node's histogram samples the event loop's delay, in ms; what it adds to each sample. */
const RESOLUTION = 10
/**
 * Ten of the histogram's samples: it records one each time its timer fires, from the second after a
 * reset, so an interval of one or two resolutions holds none, and its mean says nothing.
 */
const MIN_SAMPLE_INTERVAL = 10 * RESOLUTION

/**
 * Each app measures the process on its own, from its start to its close. Node's event-loop delay
 * histogram samples on a timer of its own until it is disabled: an app that left one running (as
 * @fastify/under-pressure, used here before, does) left a timer firing a hundred times a second
 * for every reload of the declaration.
 */
async function loadShedding (app: FastifyInstance, options: LoadSheddingOptions): Promise<void> {
  const retryAfter = options.retryAfter ?? 10
  const sampleInterval = Math.max(MIN_SAMPLE_INTERVAL, options.sampleInterval ?? 1000)
  const armAfter = options.armAfter ?? ((ms: number, arm: () => void) => { setTimeout(arm, ms).unref() })
  const limits = {
    delay: options.maxEventLoopDelay ?? 1000,
    heap: options.maxHeapUsedBytes ?? Math.floor(getHeapStatistics().heap_size_limit * SHARE),
    rss: options.maxRssBytes ?? Math.floor(availableMemory() * SHARE)
  }
  const { healthCheck, onSample } = options
  const delays = monitorEventLoopDelay({ resolution: RESOLUTION })
  delays.enable()
  let pressed = false
  let healthy = true
  let closed = false
  const underPressure = (): boolean => pressed || !healthy

  /** The process as it is now; the loop's delay is the mean since the last sample. */
  function sample (delayMs: number): void {
    const { heapUsed, rss } = process.memoryUsage()
    pressed = past(limits.delay, delayMs) || past(limits.heap, heapUsed) || past(limits.rss, rss)
    onSample?.({ delayMs, heapUsed, rss, underPressure: underPressure() })
  }
  /**
   * The mean delay of the loop since the last sample, less the histogram's own resolution: how late
   * its timer fired, on average, while tasks held the loop. An interval with no sample in it (the
   * first, before the loop has turned) has a mean of NaN: no delay measured.
   */
  function meanDelay (): number {
    const delay = Math.max(0, delays.mean / 1e6 - RESOLUTION) || 0
    delays.reset()
    return delay
  }
  async function check (): Promise<void> {
    if (healthCheck === undefined) return
    try {
      healthy = await healthCheck()
    } catch (err) {
      healthy = false
      app.log.error({ err }, 'the health check failed: shedding load')
    }
  }
  // Measured once now (no delay yet: the loop has not turned since the histogram began), then every
  // interval, each measure once the last is done.
  sample(meanDelay())
  await check()
  const timer = setTimeout(async function measure () {
    const delay = meanDelay()
    await check()
    sample(delay)
    if (!closed) timer.refresh()
  }, sampleInterval).unref()
  app.addHook('onClose', async () => {
    closed = true
    clearTimeout(timer)
    delays.disable()
  })

  // The sample taken as the start ends measures the start; the one after it, the load.
  let armed = false
  app.addHook('onReady', async function arm () {
    armAfter(2 * sampleInterval, () => { armed = true })
  })
  const refusal = (): Error => Object.assign(problem('AG_OVERLOADED', `The server is overloaded; retry after ${retryAfter} s.`), {
    headers: { 'Retry-After': String(retryAfter) }
  })
  const overloaded = (): Error | undefined => armed && underPressure() ? refusal() : undefined
  app.decorate('underPressure', underPressure)
  app.decorate('overloaded', overloaded)
  // Handed to `done`, not sent: the error goes through the problems plugin like any other. With
  // `done` rather than async, a hook run on every request is spared a promise and a microtask.
  app.addHook('onRequest', function shed (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
    done(routeConfig(request).shed === false ? undefined : overloaded())
  })
}

export default fp(loadShedding, { name: 'load-shedding' })

/** Whether `value` is beyond `limit`; a limit of 0 is none. */
function past (limit: number, value: number): boolean {
  return limit > 0 && value > limit
}

/** The container's memory limit when it has one, else the machine's. */
function availableMemory (): number {
  // Without a limit, Node answers 0, undefined or 2^64 depending on its version.
  return Math.min(...[Number(process.constrainedMemory()), totalmem()].filter((bytes) => bytes > 0))
}
