// `npm run load`: the built server under autocannon, on loopback only, for LOAD_SECONDS (default
// 30) with LOAD_CONNECTIONS (default 50) over both audiences and every kind of route. Prints what it
// saw and whether the targets hold (no errors, no unexpected status, RSS growth under 20%, a clean
// exit on SIGTERM); exits 1 when one does not. RSS growth is counted from the end of a warm-up
// (LOAD_WARMUP_SECONDS, default 15) under the same load: the heap first grows to the load's size,
// and only growth past that is a leak.
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { requestMix, type LoadRequest } from './mix.js'
import { startLoadServer } from './server.js'

interface AutocannonRequest {
  method: 'GET'
  path: string
  headers: Record<string, string>
  onResponse: (status: number) => void
}

interface AutocannonResult {
  requests: { total: number, average: number }
  latency: { p50: number, p99: number }
  errors: number
  timeouts: number
  non2xx: number
  statusCodeStats: Record<string, { count: number }>
  duration: number
}

// autocannon ships no types; the few fields used are typed above.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string
  connections: number
  duration: number
  requests: AutocannonRequest[]
}) => Promise<AutocannonResult>

const KEY = 'load-key-0123456789abcdef'
const MAX_RSS_GROWTH = 0.2

async function main (): Promise<void> {
  const seconds = positive('LOAD_SECONDS', 30)
  const connections = positive('LOAD_CONNECTIONS', 50)
  const warmup = positive('LOAD_WARMUP_SECONDS', 15)
  const dir = mkdtempSync(join(tmpdir(), 'audience-gateway-load-'))
  const server = await startLoadServer({
    DATABASE_URL: join(dir, 'catalogue.sqlite'),
    API_KEYS: KEY,
    LOG_LEVEL: process.env.LOAD_LOG_LEVEL ?? 'warn',
    // The limiter runs, as served, but with a budget the run cannot spend: one key drives it all.
    RATE_LIMIT_MAX: '1000000000',
    // Each connection may stream a list at once, all with that one key.
    STREAMS_PER_CLIENT: '0'
  })
  try {
    const etag = await agentEtag(server.url)
    const mix = requestMix(KEY, etag)
    const startRss = server.rss()
    await drive(server.url, mix, connections, warmup)
    const beforeRss = server.rss()
    // Sampled through the run: a leak climbs to the end, a heap sizing itself to the load levels off.
    const samples: number[] = []
    const sampler = setInterval(() => samples.push(server.rss()), 5000)
    const { result, unexpected } = await drive(server.url, mix, connections, seconds)
    clearInterval(sampler)
    const afterRss = server.rss()
    const exitCode = await server.stop()
    const growth = (afterRss - beforeRss) / beforeRss
    const unexpectedCount = Object.values(unexpected).reduce((sum, statuses) => sum + Object.values(statuses).reduce((a, b) => a + b, 0), 0)

    log(`npm run load: ${seconds} s, ${connections} connections, ${mix.length} requests round-robin, against ${server.url} (node dist/src/server.js; ${warmup} s warm-up first)`)
    log(`  requests   ${result.requests.total} (${Math.round(result.requests.total / result.duration)}/s)`)
    log(`  statuses   ${Object.entries(result.statusCodeStats).map(([status, { count }]) => `${status}: ${count}`).join(', ')}`)
    log(`  non-2xx    ${result.non2xx} (${Object.entries(result.statusCodeStats).filter(([status]) => !status.startsWith('2')).map(([status, { count }]) => `${status}: ${count}`).join(', ') || 'none'}; the 304s are the conditional GET's)`)
    log(`  errors     ${result.errors} (timeouts ${result.timeouts})`)
    log(`  latency    p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`)
    log(`  RSS        ${mib(startRss)} at start, ${mib(beforeRss)} after warm-up, ${mib(afterRss)} after (${percent(growth)})`)
    log(`             every 5 s: ${samples.map(mib).join(', ')}`)
    log(`  SIGTERM    exit code ${String(exitCode)}`)
    for (const [name, statuses] of Object.entries(unexpected)) log(`  unexpected ${name}: ${JSON.stringify(statuses)}`)

    const targets: Array<[string, boolean]> = [
      ['zero errors', result.errors === 0 && result.timeouts === 0],
      [`zero unexpected statuses (${unexpectedCount})`, unexpectedCount === 0],
      [`RSS growth under ${MAX_RSS_GROWTH * 100}% (${percent(growth)})`, growth < MAX_RSS_GROWTH],
      ['a clean exit on SIGTERM', exitCode === 0]
    ]
    log('targets')
    for (const [target, held] of targets) log(`  ${held ? 'ok  ' : 'FAIL'} ${target}`)
    if (targets.some(([, held]) => !held)) process.exitCode = 1
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs the mix; counts, per request, every status other than the one it must get. */
async function drive (url: string, mix: readonly LoadRequest[], connections: number, seconds: number) {
  const unexpected: Record<string, Record<number, number>> = {}
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: mix.map((request) => ({
      method: 'GET',
      path: request.path,
      headers: { ...request.headers },
      onResponse: (status: number) => {
        if (status === request.expect) return
        const statuses = unexpected[request.name] ??= {}
        statuses[status] = (statuses[status] ?? 0) + 1
      }
    }))
  })
  return { result, unexpected }
}

async function agentEtag (url: string): Promise<string> {
  const res = await fetch(`${url}/books/1`, { headers: { authorization: `Bearer ${KEY}`, 'x-audience': 'agent' } })
  const etag = res.headers.get('etag')
  if (res.status !== 200 || etag === null) throw new Error(`GET /books/1 as an agent answered ${res.status} without an ETag`)
  return etag
}

function positive (name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number from 1; got ${JSON.stringify(process.env[name])}.`)
  return value
}

function mib (bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

function percent (ratio: number): string {
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`
}

function log (line: string): void {
  process.stdout.write(`${line}\n`)
}

await main()
