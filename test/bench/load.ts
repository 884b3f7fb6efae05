// autocannon, driven from this process against a server in another. autocannon ships no types;
// the few fields read here are typed below.
import { createRequire } from 'node:module'
import { cpuSecondsOf } from './child.js'

interface Histogram { average: number, p50: number, p99: number, total: number }

interface AutocannonResult {
  requests: Histogram
  latency: Histogram
  throughput: Histogram
  errors: number
  timeouts: number
  non2xx: number
  statusCodeStats: Record<string, { count: number }>
  duration: number
}

/** One request autocannon sends; `setupRequest` may rewrite it before each send, `onResponse` reads each answer. */
export interface AutocannonRequest {
  method: 'GET' | 'POST'
  path?: string
  body?: string
  setupRequest?: (request: { method: string, path: string }) => { method: string, path: string }
  onResponse?: (status: number, body: string) => void
}

interface AutocannonOptions {
  url: string
  connections: number
  duration: number
  headers?: Record<string, string>
  requests?: AutocannonRequest[]
}

export const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>

export interface LoadResult {
  /** Requests per second over the measured run. */
  readonly rps: number
  /** Latency percentiles, in milliseconds. */
  readonly p50: number
  readonly p99: number
  readonly requests: number
  /**
   * The server's CPU time per request, in microseconds: what a request costs, nearly untouched by
   * other work on a shared machine (which steals wall time, not this process's CPU time).
   */
  readonly cpuUs: number
}

export interface LoadOptions {
  readonly paths: readonly string[]
  /** One body per path: the requests are POSTs of them (MCP messages); GETs without. */
  readonly bodies?: readonly string[]
  readonly headers: Record<string, string>
  /** The one status every answer must have (default: any 2xx), e.g. 304 for revalidations. */
  readonly status?: number
  readonly connections: number
  readonly seconds: number
}

/** Load that is not measured: to warm a server up, or to settle it after another one ran. */
export async function warmLoad (url: string, options: LoadOptions, seconds: number): Promise<void> {
  await run(url, options, seconds)
}

/** Measures `url` under load; a run with any error or an answer of another status is refused. */
export async function measureLoad (url: string, pid: number, options: LoadOptions): Promise<LoadResult> {
  const cpuBefore = cpuSecondsOf(pid)
  const result = await run(url, options, options.seconds)
  const cpu = cpuSecondsOf(pid) - cpuBefore
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    cpuUs: (cpu * 1e6) / result.requests.total
  }
}

async function run (url: string, options: LoadOptions, seconds: number): Promise<AutocannonResult> {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: seconds,
    headers: options.headers,
    requests: options.paths.map((path, i) => options.bodies === undefined ? { method: 'GET', path } : { method: 'POST', path, body: options.bodies[i] })
  })
  const unexpected = options.status === undefined ? result.non2xx : result.requests.total - (result.statusCodeStats[options.status]?.count ?? 0)
  if (result.errors > 0 || unexpected > 0 || result.timeouts > 0) {
    throw new Error(`${url}${options.paths[0]}: ${result.errors} errors, ${result.timeouts} timeouts, ${unexpected} answers not ${options.status ?? '2xx'} under load (statuses ${JSON.stringify(result.statusCodeStats)}).`)
  }
  return result
}
