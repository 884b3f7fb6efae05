// What tracing costs. The same 50-book agent pages as scenario 1, from three gateways as shipped,
// each in its own process, in alternating rounds: two with no OTEL_* variable (tracing off, twice,
// so the bench's own noise between identical servers is measured beside the figure), one exporting
// every span over OTLP to a sink in this process that reads and discards them (tracing on: what
// recording and exporting cost). Then what the spans cost with tracing off, which no pair of builds
// of the same code can isolate: the core's span wrappers (src/core/spans.ts) timed in this process,
// where no provider is registered, against the same work called bare.
import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import { startServer } from './child.js'
import { AGENT, body } from './http.js'
import { loadFigures, loadMedians, measureInRounds, throughputRatio } from './alternate.js'
import type { LoadResult } from './load.js'
import { median, round, type Row, type Verdict } from './report.js'
import type { BenchSettings } from './settings.js'
import { inSpan, inSpanSync } from '../../src/core/spans.js'
import { FLOW_ONLY } from './servers/options.js'

const PATHS = [1, 50, 100, 150, 200].map((page) => `/books?page=${page}&limit=50`)
/** The share of a request's CPU the spans may take with tracing off to be called unmeasurable. */
const OFF_SHARE = 0.01
const CALLS = 200_000

const SUBJECTS = [
  { id: 'off', server: 'off', label: 'gateway, no OTEL_* (tracing off)', paths: PATHS, headers: AGENT },
  { id: 'off-again', server: 'off-again', label: 'the same, a second process (noise)', paths: PATHS, headers: AGENT },
  { id: 'on', server: 'on', label: 'gateway, OTLP to a discarding sink (tracing on)', paths: PATHS, headers: AGENT }
] as const

interface Sink {
  readonly url: string
  /** Export requests received, their bytes, and the spans they held (counted by their `"spanId"`). */
  readonly received: { posts: number, bytes: number, spans: number }
  readonly close: () => Promise<void>
}

export async function tracingScenario (databasePath: string, key: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const set = Object.keys(process.env).filter((name) => name.startsWith('OTEL_'))
  if (set.length > 0) throw new Error(`The tracing scenario compares against a gateway without OTEL_* variables; unset ${set.join(', ')}.`)
  const sink = await startSink()
  let reference: string[] | undefined
  let runs: Record<string, LoadResult[]>
  try {
    log(`tracing: ${SUBJECTS.map((subject) => subject.label).join('; ')}`)
    runs = await measureInRounds(SUBJECTS, {
      start: async (server) => await startServer('gateway', databasePath, key, server === 'on' ? { ...FLOW_ONLY, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${sink.url}/v1/traces` } : FLOW_ONLY),
      check: async (subject, server) => {
        const bodies = await Promise.all(subject.paths.map((path) => body(server.url + path, subject.headers)))
        if (reference === undefined) reference = bodies
        else if (bodies.some((text, i) => text !== reference![i])) throw new Error(`${subject.label}: a body differs from the untraced gateway's.`)
      }
    }, settings, log)
  } finally {
    await sink.close()
  }
  log('tracing: the no-op spans, in-process')
  const noop = await spanCost(Math.max(5, settings.rounds))
  return summarize(runs, sink.received, runs.on.reduce((sum, result) => sum + result.requests, 0), noop, settings)
}

function summarize (runs: Record<string, LoadResult[]>, received: Sink['received'], measuredOn: number, noop: readonly number[], settings: BenchSettings) {
  const medians = loadMedians(runs)
  const perRound = (a: string, b: string) => runs[a].map((result, i) => result.rps / runs[b][i].rps)
  const cpuPerRound = (a: string, b: string) => runs[a].map((result, i) => runs[b][i].cpuUs / result.cpuUs)
  const spread = (values: readonly number[]) => `${round(Math.min(...values))} to ${round(Math.max(...values))}`
  const onToOff = throughputRatio(runs, 'on', 'off')
  const noise = throughputRatio(runs, 'off-again', 'off')
  const noopUs = median(noop)
  const offShare = noopUs / medians.off.cpuUs
  const rows: Row[] = SUBJECTS.map((subject) => ({
    scenario: '8 tracing, 50-book agent pages of 10,000 rows',
    subject: subject.label,
    figures: {
      ...loadFigures(medians[subject.id]),
      ...(subject.id === 'off' ? {} : { 'x off': round(throughputRatio(runs, subject.id, 'off').rps), 'CPU x off': round(throughputRatio(runs, subject.id, 'off').cpu) })
    }
  }))
  rows.push({ scenario: '8 tracing, 50-book agent pages of 10,000 rows', subject: 'the core\'s 3 spans of a page, tracing off, in-process', figures: { 'CPU us/req': round(noopUs, 3), rounds: `${round(Math.min(...noop), 3)} to ${round(Math.max(...noop), 3)}` } })
  return {
    rows,
    verdicts: [
      {
        target: `tracing off: the no-op spans of an agent page (count, slice, projection) cost < ${OFF_SHARE * 100}% of the request's CPU`,
        measured: `${round(noopUs, 3)} us against ${round(medians.off.cpuUs)} us per request (${round(offShare * 100, 3)}%); two identical untraced servers differ by ${round(noise.rps)} x req/s (rounds ${spread(perRound('off-again', 'off'))}), ${round(noise.cpu)} x by CPU (rounds ${spread(cpuPerRound('off-again', 'off'))})`,
        holds: offShare < OFF_SHARE
      },
      {
        target: 'tracing on (OTLP to a discarding sink) against off, no target',
        measured: `${round(onToOff.rps)} x req/s (rounds ${spread(perRound('on', 'off'))}), ${round(onToOff.cpu)} x by CPU (rounds ${spread(cpuPerRound('on', 'off'))}); ${received.spans.toLocaleString('en-US')} spans in ${received.posts} exports (${Math.round(received.bytes / 1024).toLocaleString('en-US')} KiB) for ${measuredOn.toLocaleString('en-US')} measured requests and their warm-up`,
        holds: null
      }
    ],
    summary: {
      pages: PATHS,
      connections: settings.connections,
      subjects: Object.fromEntries(SUBJECTS.map((subject) => [subject.id, { label: subject.label, median: medians[subject.id], rounds: runs[subject.id] }])),
      sink: received,
      noopSpansUsPerRequest: { median: noopUs, rounds: noop },
      ratios: { onToOff, offAgainToOff: noise, noopShareOfOff: offShare }
    }
  }
}

/** An OTLP/HTTP receiver on loopback that answers every export with success and keeps nothing. */
async function startSink (): Promise<Sink> {
  const received = { posts: 0, bytes: 0, spans: 0 }
  const server: Server = createServer((request, response) => {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => { text += chunk })
    request.on('end', () => {
      received.posts++
      received.bytes += Buffer.byteLength(text)
      for (let at = text.indexOf('"spanId"'); at !== -1; at = text.indexOf('"spanId"', at + 8)) received.spans++
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, received, close: async () => { await new Promise((resolve) => server.close(resolve)) } }
}

/**
 * Microseconds of CPU per agent page that the core's spans cost with no provider registered (as in
 * a gateway without OTEL_*): two async spans (count, slice) and one synchronous (projection), less
 * the same work called bare; one figure per round, after a round unmeasured (the JIT's).
 */
async function spanCost (rounds: number): Promise<number[]> {
  const work = async () => 1
  const sync = () => 1
  const spanned = async () => { await inSpan('count', work); await inSpan('slice', work); inSpanSync('projection', sync) }
  const bare = async () => { await work(); await work(); sync() }
  const time = async (page: () => Promise<unknown>) => {
    const before = process.cpuUsage()
    for (let i = 0; i < CALLS; i++) await page()
    const used = process.cpuUsage(before)
    return (used.user + used.system) / CALLS
  }
  const figures: number[] = []
  for (let i = 0; i <= rounds; i++) {
    const cost = await time(spanned) - await time(bare)
    if (i > 0) figures.push(cost)
  }
  return figures
}
