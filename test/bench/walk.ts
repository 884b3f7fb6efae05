// Scenario 10: a walk, as agents really read. Agents (one connection each, BENCH_CONNECTIONS of
// them at once) walk the 1,240-entry ledger to its end by the envelope's next_offset, 50 entries a
// page, then walk it again under new filters: every walk's arguments are new (posted_at_min moves on
// a second each walk, and every other walk also bounds posted_at_max), so every page is asked once
// and no answer the gateway keeps is ever asked for again. The gateway as shipped (its answers kept,
// RESPONSE_CACHE_MB as it defaults) against the route hand-written for speed walking the same pages,
// each in its own process, in alternating rounds (each round fresh processes); pages per second and
// CPU per page. The first round first compares both servers' bytes along two whole walks.
import { cpuSecondsOf, startServer, type ServerProcess } from './child.js'
import { AGENT } from './http.js'
import { autocannon } from './load.js'
import { median, round, type Row, type Verdict } from './report.js'
import type { BenchSettings } from './settings.js'
import { SPEED_LEDGER_URL } from './servers/hand-speed.js'

const TIME_ZONE = 'Europe/Paris'
const TARGET = 0.8
const PAGE = 50
/** The first instant a walk filters from: the ledger's first entry is posted on it. */
const FIRST = Date.parse('2026-01-01T00:00:00Z')
/** How far an upper-bounded walk reaches: most of the ledger (an entry every six hours). */
const SPAN_MS = 200 * 86_400_000
const SETTLE_SECONDS = 0.5
const SCENARIO = '10 a walk: agents paging the ledger to its end by next_offset, every page new'

/** The `k`-th walk's filters, as a query string: new for every k. */
export function walkFilters (k: number): string {
  const min = new Date(FIRST + k * 1000).toISOString().replace('.000Z', 'Z')
  if (k % 2 === 0) return `posted_at_min=${min}`
  const max = new Date(FIRST + k * 1000 + SPAN_MS).toISOString().replace('.000Z', 'Z')
  return `posted_at_min=${min}&posted_at_max=${max}`
}

/** Walks handed out one after another, never the same twice for a subject. */
interface Walks { next: () => string }

function walks (): Walks {
  let k = 0
  return { next: () => walkFilters(k++) }
}

interface WalkResult {
  readonly pages: number
  readonly pagesPerSecond: number
  readonly cpuUsPerPage: number
  /** Walks followed to has_more: false within the slice. */
  readonly finished: number
}

/** `agents` connections, each walking by next_offset for `seconds`, from walks handed out by `source`. */
async function walkFor (server: ServerProcess, prefix: string, agents: number, seconds: number, source: Walks): Promise<WalkResult> {
  let finished = 0
  const failures: string[] = []
  const agent = async (): ReturnType<typeof autocannon> => {
    let filters = source.next()
    let offset = 0
    return await autocannon({
      url: server.url,
      connections: 1,
      duration: seconds,
      headers: AGENT,
      requests: [{
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: `${prefix}?${filters}&offset=${offset}&limit=${PAGE}` }),
        onResponse: (status, body) => {
          const next = /"next_offset":(\d+)/.exec(body)
          if (status !== 200) failures.push(`${status} ${body.slice(0, 200)}`)
          if (next !== null) {
            offset = Number(next[1])
            return
          }
          finished++
          filters = source.next()
          offset = 0
        }
      }]
    })
  }
  const cpuBefore = cpuSecondsOf(server.pid)
  const results = await Promise.all(Array.from({ length: agents }, agent))
  const cpu = cpuSecondsOf(server.pid) - cpuBefore
  const bad = results.reduce((sum, result) => sum + result.errors + result.timeouts + result.non2xx, 0)
  if (bad > 0 || failures.length > 0) throw new Error(`${server.url}${prefix}: ${bad} failed requests in a walk (${failures[0] ?? 'errors or timeouts'}).`)
  const pages = results.reduce((sum, result) => sum + result.requests.total, 0)
  const duration = Math.max(...results.map((result) => result.duration))
  return { pages, pagesPerSecond: pages / duration, cpuUsPerPage: (cpu * 1e6) / pages, finished }
}

/** Both servers' pages along the walk with `filters`, compared byte for byte, page after page. */
async function assertSameWalk (gateway: ServerProcess, speed: ServerProcess, filters: string): Promise<number> {
  let offset: number | undefined = 0
  let pages = 0
  while (offset !== undefined) {
    const [ours, theirs] = await Promise.all([
      fetch(`${gateway.url}/ledger?${filters}&offset=${offset}&limit=${PAGE}`, { headers: AGENT }),
      fetch(`${speed.url}${SPEED_LEDGER_URL}?${filters}&offset=${offset}&limit=${PAGE}`, { headers: AGENT })
    ])
    const [body, reference] = [await ours.text(), await theirs.text()]
    if (ours.status !== 200 || body !== reference || ours.headers.get('content-type') !== theirs.headers.get('content-type')) {
      throw new Error(`walk ${filters} at offset ${offset}: the speed route's page differs from the gateway's (${ours.status}, ${body.length} vs ${reference.length} bytes).`)
    }
    const next = /"next_offset":(\d+)/.exec(body)
    offset = next === null ? undefined : Number(next[1])
    pages++
  }
  return pages
}

export async function walkScenario (databasePath: string, key: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const agents = settings.connections
  const subjects = [
    { id: 'gateway', label: 'gateway as shipped (answers kept), /ledger', prefix: '/ledger', walks: walks() },
    { id: 'speed', label: 'hand-written for speed, the same pages', prefix: SPEED_LEDGER_URL, walks: walks() }
  ] as const
  log(`walk: ${agents} agents at once, each following next_offset to the end, every walk under new filters`)
  const runs: Record<string, WalkResult[]> = { gateway: [], speed: [] }
  for (let i = 0; i < settings.rounds; i++) {
    const env = { BENCH_TIME_ZONE: TIME_ZONE }
    const servers = { gateway: await startServer('gateway', databasePath, key, env), speed: await startServer('speed', databasePath, key, env) }
    try {
      if (i === 0) {
        // Walks no slice will ask: the gateway keeps what it serves here.
        const compared = await assertSameWalk(servers.gateway, servers.speed, 'posted_at_min=2025-12-31T00:00:00Z') + await assertSameWalk(servers.gateway, servers.speed, 'posted_at_min=2025-12-31T00:00:00Z&posted_at_max=2026-06-30T00:00:00Z')
        log(`  ${compared} pages compared along two walks: the same bytes`)
      }
      log(`  round ${i + 1}/${settings.rounds}: ${subjects.length} subjects, ${settings.seconds} s each`)
      for (const subject of subjects) await walkFor(servers[subject.id], subject.prefix, agents, settings.warmupSeconds, subject.walks)
      const order = i % 2 === 0 ? subjects : [...subjects].reverse()
      for (const subject of order) {
        await walkFor(servers[subject.id], subject.prefix, agents, SETTLE_SECONDS, subject.walks)
        runs[subject.id].push(await walkFor(servers[subject.id], subject.prefix, agents, settings.seconds, subject.walks))
      }
    } finally {
      await servers.gateway.stop()
      await servers.speed.stop()
    }
  }
  const ratios = runs.gateway.map((result, i) => result.pagesPerSecond / runs.speed[i].pagesPerSecond)
  const cpuRatios = runs.gateway.map((result, i) => runs.speed[i].cpuUsPerPage / result.cpuUsPerPage)
  const ratio = median(ratios)
  const rows: Row[] = subjects.map((subject) => ({
    scenario: SCENARIO,
    subject: subject.label,
    figures: {
      'pages/s': round(median(runs[subject.id].map((result) => result.pagesPerSecond))),
      'CPU us/page': round(median(runs[subject.id].map((result) => result.cpuUsPerPage))),
      'walks ended': median(runs[subject.id].map((result) => result.finished)),
      ...(subject.id === 'gateway' ? { 'x speed': round(ratio), 'CPU x speed': round(median(cpuRatios)) } : {})
    }
  }))
  return {
    rows,
    verdicts: [{
      target: `a walk (${agents} agents, every page new, answers kept as shipped) >= ${TARGET} x the route hand-written for speed walking the same pages (pages/s)`,
      measured: `${round(ratio)} x (by CPU ${round(median(cpuRatios))} x; rounds ${ratios.map((value) => round(value)).join(', ')})`,
      holds: ratio >= TARGET
    }],
    summary: { agents, page: PAGE, timeZone: TIME_ZONE, subjects: Object.fromEntries(subjects.map((subject) => [subject.id, { label: subject.label, rounds: runs[subject.id] }])), ratios, cpuRatios }
  }
}
