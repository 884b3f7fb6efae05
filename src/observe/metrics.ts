// The gateway's Prometheus metrics, on a registry of its own (one per app, never prom-client's
// global one): what the transports record per request, and the observers the core is handed (the
// store's count cache, the upstream clients, the rows served). Label values are bounded: operation
// names, audiences, status classes, registry codes and configured upstream origins, never URLs.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { UpstreamObserver } from '../sources/upstream/client.js'
import type { ReaderUse } from '../store/index.js'
import type { KeptOutcome } from '../core/served-cache.js'

/** Seconds: from a cached page (~1 ms) to an upstream's deadline (10 s). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export interface GatewayMetrics {
  readonly registry: Registry
  /** One answered request: its operation, audience, status, seconds taken and bytes written. */
  readonly request: (operation: string, audience: string, status: number, seconds: number, bytes: number) => void
  /** One refusal, by the registry's code (or `other`). */
  readonly refusal: (operation: string, code: string) => void
  /** Rows served by one call, and whether its window was clamped. */
  readonly rows: (operation: string, audience: string, rows: number, clamped: boolean) => void
  /** One total asked of the count cache. */
  readonly count: (outcome: 'hit' | 'miss') => void
  /** One answer looked up among those kept (src/core/served-cache.ts). */
  readonly kept: (outcome: KeptOutcome) => void
  readonly upstream: UpstreamObserver
  /** One action call, by how it ended (src/core/act.ts). */
  readonly action: (action: string, outcome: string) => void
}

/**
 * The process's own metrics (CPU, memory, the event loop, garbage collection): one registry per
 * process, shared by the apps it serves in turn, since what collects them (an event-loop monitor, a
 * GC observer) is never stopped once started.
 */
export function processMetrics (): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return registry
}

/**
 * The metrics of one app, scraped with the process's; `readers` is read when scraped: the store's
 * connections in use and waiting.
 */
export function gatewayMetrics (readers: () => ReaderUse, process: Registry = processMetrics()): GatewayMetrics {
  const own = new Registry()
  const requests = talliedCounter({ name: 'gateway_requests_total', help: 'Requests answered, by operation, audience and status class.', labelNames: ['operation', 'audience', 'status_class'], registers: [own] })
  const duration = batchedHistogram({ name: 'gateway_request_duration_seconds', help: 'Time from a request\'s arrival to its answer\'s last byte.', labelNames: ['operation', 'audience'], buckets: LATENCY_BUCKETS, registers: [own] })
  const bytes = talliedCounter({ name: 'gateway_response_bytes_total', help: 'Bytes written for answers (headers included), by operation and audience.', labelNames: ['operation', 'audience'], registers: [own] })
  const refusals = talliedCounter({ name: 'gateway_refusals_total', help: 'Problems answered, by operation and the problem registry\'s code.', labelNames: ['operation', 'code'], registers: [own] })
  const rows = talliedCounter({ name: 'gateway_rows_served_total', help: 'Rows (records) served, by operation and audience.', labelNames: ['operation', 'audience'], registers: [own] })
  const clamps = talliedCounter({ name: 'gateway_clamps_total', help: 'Agent windows served clamped to their ceiling, by operation.', labelNames: ['operation'], registers: [own] })
  const counts = talliedCounter({ name: 'gateway_count_cache_total', help: 'Totals asked of the count cache: remembered (hit) or counted (miss).', labelNames: ['outcome'], registers: [own] })
  const answers = talliedCounter({ name: 'gateway_response_cache_total', help: 'Lists\' answers looked up among those kept: served as kept (hit) or read again (miss).', labelNames: ['outcome'], registers: [own] })
  const actions = talliedCounter({ name: 'gateway_actions_total', help: 'Action calls, by action and outcome (done, replayed, unavailable, refused, failed).', labelNames: ['action', 'outcome'], registers: [own] })
  const calls = talliedCounter({ name: 'gateway_upstream_calls_total', help: 'Calls to upstreams (retries included in one call), by origin and outcome.', labelNames: ['upstream', 'outcome'], registers: [own] })
  const callTime = batchedHistogram({ name: 'gateway_upstream_call_duration_seconds', help: 'Time an upstream call took, retries and waits included.', labelNames: ['upstream', 'outcome'], buckets: LATENCY_BUCKETS, registers: [own] })
  // Read when scraped, never per request.
  own.registerMetric(new Gauge({ name: 'gateway_store_readers_in_use', help: 'Store connections in use (SQLite: whole-list readers; PostgreSQL: pooled connections).', registers: [], collect () { this.set(readers().inUse) } }))
  own.registerMetric(new Gauge({ name: 'gateway_store_readers_waiting', help: 'Queries waiting for a store connection.', registers: [], collect () { this.set(readers().waiting) } }))
  const metrics: GatewayMetrics = {
    // What is scraped: the process's metrics and this app's (the same metric objects, listed once).
    registry: Registry.merge([process, own]),
    request: (operation, audience, status, seconds, written) => {
      requests.inc(1, operation, audience, `${Math.floor(status / 100)}xx`)
      duration.observe(seconds, operation, audience)
      bytes.inc(written, operation, audience)
    },
    refusal: (operation, code) => { refusals.inc(1, operation, code) },
    rows: (operation, audience, served, clamped) => {
      rows.inc(served, operation, audience)
      if (clamped) clamps.inc(1, operation)
    },
    count: (outcome) => { counts.inc(1, outcome) },
    kept: (outcome) => { answers.inc(1, outcome) },
    action: (action, outcome) => { actions.inc(1, action, outcome) },
    upstream: {
      call: (upstream, outcome, seconds) => {
        calls.inc(1, upstream, outcome)
        callTime.observe(seconds, upstream, outcome)
      }
    }
  }
  return metrics
}

/** A histogram of `batchedHistogram`: `observe(value, ...values)`, the label values in the order of its label names. */
interface BatchedHistogram {
  readonly observe: (value: number, ...values: string[]) => void
}

/** Observations a label set keeps before they are handed to prom-client together. */
export const OBSERVATIONS_BATCHED = 1024

/**
 * A prom-client histogram whose observations are kept in plain numbers, a batch per label set, and
 * handed to prom-client a batch at a time, and all of them when it is scraped. Observed one by one
 * as a request ends, prom-client's checks and hashing ran amid a request's own work and cost it
 * about 4 µs; handed over together, they run in one loop. What is scraped is every observation
 * made, as prom-client's own would show it.
 */
function batchedHistogram ({ registers, ...configuration }: { name: string, help: string, labelNames: string[], buckets: number[], registers: Registry[] }): BatchedHistogram {
  const batches = perLabelSet<Batch>(configuration.labelNames, (labels) => ({ labels, values: new Float64Array(OBSERVATIONS_BATCHED), length: 0 }))
  const histogram: Histogram = new Histogram({
    ...configuration,
    registers: [],
    collect () {
      for (const batch of batches.all()) handOver(batch)
    }
  })
  for (const registry of registers) registry.registerMetric(histogram)
  function handOver (batch: Batch): void {
    for (let i = 0; i < batch.length; i++) histogram.observe(batch.labels, batch.values[i])
    batch.length = 0
  }
  return {
    observe: (value, ...values) => {
      // Refused as prom-client refuses it, when observed: kept, it would fail every hand-over after.
      if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`)
      const batch = batches.of(values)
      batch.values[batch.length++] = value
      if (batch.length === OBSERVATIONS_BATCHED) handOver(batch)
    }
  }
}

/** One label set's observations not yet handed to prom-client: the first `length` of `values`. */
interface Batch {
  readonly labels: Record<string, string>
  readonly values: Float64Array
  length: number
}

/**
 * What a metric keeps per label set, made by `make` the first time the set's values are met. Found
 * by one map per label, in the order of the names: a request asks for a few sets, and a key joined
 * from the values would be a string made, then hashed, for each of them.
 */
function perLabelSet<Kept> (names: readonly string[], make: (labels: Record<string, string>) => Kept): { of: (values: readonly string[]) => Kept, all: () => Iterable<Kept> } {
  const first = new Map<string, unknown>()
  const kept: Kept[] = []
  return {
    of: (values) => {
      let level = first
      const last = values.length - 1
      for (let i = 0; i < last; i++) {
        let next = level.get(values[i]) as Map<string, unknown> | undefined
        if (next === undefined) level.set(values[i], next = new Map())
        level = next
      }
      let entry = level.get(values[last]) as Kept | undefined
      if (entry === undefined) {
        entry = make(Object.fromEntries(names.map((name, i) => [name, values[i]])))
        level.set(values[last], entry)
        kept.push(entry)
      }
      return entry
    },
    all: () => kept
  }
}

/** A counter of `talliedCounter`: `inc(by, ...values)`, the label values in the order of its label names. */
interface TalliedCounter {
  readonly inc: (by: number, ...values: string[]) => void
}

/**
 * A prom-client counter counted in plain numbers: `inc` adds to a number kept for its label values,
 * and what was added is handed to prom-client when it is scraped. prom-client checks its labels and
 * hashes them on every increment, which cost a request more than all its other metrics together.
 * Each label set is handed over at every scrape, an increment of 0 included, so a series appears
 * from its first increment as prom-client's own would.
 */
function talliedCounter ({ registers, ...configuration }: { name: string, help: string, labelNames: string[], registers: Registry[] }): TalliedCounter {
  const tallies = perLabelSet(configuration.labelNames, (labels) => ({ labels, added: 0 }))
  const counter = new Counter({
    ...configuration,
    registers: [],
    collect () {
      for (const tally of tallies.all()) {
        this.inc(tally.labels, tally.added)
        tally.added = 0
      }
    }
  })
  for (const registry of registers) registry.registerMetric(counter)
  return {
    inc: (by, ...values) => { tallies.of(values).added += by }
  }
}
