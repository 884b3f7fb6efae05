// Scenario 3: the plain list of the large table as one response. The gateway streams it; the
// reference loads every row and JSON.stringify-s them. Each runs in a fresh process per round, so
// its peak RSS (VmHWM, reset just before the request) belongs to that one response.
import { createHash } from 'node:crypto'
import { request } from 'node:http'
import { rotate } from './alternate.js'
import { memoryOf, resetPeak, startServer, type ServerProcess } from './child.js'
import { AGENT, AUTH, body } from './http.js'
import { median, medianOf, round, type Row, type Verdict } from './report.js'
import type { ServerKind } from './server.js'
import { AGENT_URL, LOAD_ALL_URL } from './servers/hand-fastify.js'
import type { BenchSettings } from './settings.js'

const MB = 1024 * 1024
/** A round is two fresh servers and a million rows each way, the longest part of the suite. */
const MAX_ROUNDS = 2
/** How often the server's RSS is sampled while it answers (a fallback when VmHWM cannot be reset). */
const SAMPLE_MS = 20

interface Subject {
  readonly id: string
  readonly kind: ServerKind
  readonly label: string
  readonly path: string
  /** A few small requests first, so the code paths are compiled before the big one. */
  readonly warmup: ReadonlyArray<[string, Record<string, string>]>
}

const SUBJECTS: readonly Subject[] = [
  { id: 'gateway-stream', kind: 'gateway', label: 'gateway, plain list streamed', path: '/books', warmup: [['/invoices', AUTH], ['/books?page=1', AGENT]] },
  { id: 'load-all', kind: 'fastify', label: 'reference: load all rows, JSON.stringify', path: LOAD_ALL_URL, warmup: [[`${AGENT_URL}?page=1`, AUTH]] }
]

export interface StreamRun {
  /** Milliseconds to the first body byte, and to the last. */
  readonly ttfbMs: number
  readonly totalMs: number
  readonly rowsPerSecond: number
  readonly bytes: number
  /** The server's RSS before the request, its peak during it, and the growth, in MB. */
  readonly rssBeforeMb: number
  readonly rssPeakMb: number
  readonly rssGrowthMb: number
}

export async function stream (databasePath: string, rows: number, key: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const runs: Record<string, StreamRun[]> = { 'gateway-stream': [], 'load-all': [] }
  const digests = new Set<string>()
  const rounds = Math.min(settings.rounds, MAX_ROUNDS)
  for (let round = 0; round < rounds; round++) {
    for (const subject of rotate(SUBJECTS, round)) {
      log(`stream round ${round + 1}/${rounds}: ${subject.label}`)
      const server = await startServer(subject.kind, databasePath, key)
      try {
        for (const [path, headers] of subject.warmup) for (let i = 0; i < 10; i++) await body(server.url + path, headers)
        const { run, digest } = await measureOne(server, subject.path, rows)
        digests.add(digest)
        runs[subject.id].push(run)
      } finally {
        await server.stop()
      }
    }
  }
  if (digests.size !== 1) throw new Error(`The streamed list and the reference differ: ${digests.size} different bodies.`)
  const medians = Object.fromEntries(Object.entries(runs).map(([id, list]) => [id, medianOf(list.map((run) => ({ ...run })))])) as Record<string, StreamRun>
  const speed = median(runs['gateway-stream'].map((run, i) => run.rowsPerSecond / runs['load-all'][i].rowsPerSecond))
  const growth = medians['gateway-stream'].rssGrowthMb
  const worstGrowth = Math.max(...runs['gateway-stream'].map((run) => run.rssGrowthMb))
  return {
    rows: SUBJECTS.map((subject) => ({
      scenario: `3 plain ${rows.toLocaleString('en-US')} rows`,
      subject: subject.label,
      figures: {
        'TTFB ms': medians[subject.id].ttfbMs,
        'total ms': medians[subject.id].totalMs,
        'rows/s': medians[subject.id].rowsPerSecond,
        'RSS +MB': medians[subject.id].rssGrowthMb,
        'RSS peak MB': medians[subject.id].rssPeakMb,
        ...(subject.id === 'gateway-stream' ? { 'x load-all': round(speed) } : {})
      }
    })),
    verdicts: [
      { target: 'plain array of the large table: server RSS grows < 64 MB', measured: `+${round(growth, 1)} MB median, +${round(worstGrowth, 1)} MB worst round`, holds: worstGrowth < 64 },
      { target: 'plain array: rows/s >= 0.7 x load-everything', measured: `${round(speed)} x`, holds: speed >= 0.7 }
    ],
    summary: { rows, bytes: medians['gateway-stream'].bytes, subjects: Object.fromEntries(SUBJECTS.map((s) => [s.id, { label: s.label, median: medians[s.id], rounds: runs[s.id] }])), ratio: speed }
  }
}

async function measureOne (server: ServerProcess, path: string, rows: number): Promise<{ run: StreamRun, digest: string }> {
  const before = memoryOf(server.pid).rss
  const reset = resetPeak(server.pid)
  let sampled = before
  const sampler = setInterval(() => { sampled = Math.max(sampled, memoryOf(server.pid).rss) }, SAMPLE_MS)
  try {
    const fetched = await fetchTimed(server.url + path, AUTH)
    const peak = Math.max(sampled, reset ? memoryOf(server.pid).peak : 0)
    const run: StreamRun = {
      ttfbMs: fetched.ttfbMs,
      totalMs: fetched.totalMs,
      rowsPerSecond: rows / (fetched.totalMs / 1000),
      bytes: fetched.bytes,
      rssBeforeMb: before / MB,
      rssPeakMb: peak / MB,
      rssGrowthMb: (peak - before) / MB
    }
    return { run, digest: fetched.digest }
  } finally {
    clearInterval(sampler)
  }
}

/** GET with node:http, timing the first body byte and the last; the body is hashed, not kept. */
export async function fetchTimed (url: string, headers: Record<string, string>): Promise<{ ttfbMs: number, totalMs: number, bytes: number, digest: string }> {
  const started = performance.now()
  return await new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`GET ${url}: ${String(response.statusCode)}`))
        response.resume()
        return
      }
      const hash = createHash('sha256')
      let first: number | undefined
      let bytes = 0
      response.on('data', (chunk: Buffer) => {
        first ??= performance.now()
        bytes += chunk.length
        hash.update(chunk)
      })
      response.on('end', () => {
        const ended = performance.now()
        resolve({ ttfbMs: (first ?? ended) - started, totalMs: ended - started, bytes, digest: hash.digest('hex') })
      })
      response.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}
