// Scenario 6: the gateway against the limit. Each page is served by four servers, each in its own
// process: the gateway as shipped (its answers kept while the data is unchanged), the same gateway
// reading every answer again (RESPONSE_CACHE_MB=0: what a request's own work costs), a route
// hand-written for speed (servers/hand-speed.ts), and Fastify sending the gateway's own bytes from
// memory (servers/limit.ts), the most any route here can reach. Timestamps render in an IANA zone
// with daylight saving time, as most deployments' do. Bytes are compared before anything is
// measured; then the four alternate (alternate.ts).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadFigures, loadMedians, measureInRounds, throughputRatio } from './alternate.js'
import { startServer, type ServerProcess } from './child.js'
import { AGENT, AUTH } from './http.js'
import { median, round, type Row, type Verdict } from './report.js'
import type { ServerKind } from './server.js'
import { SPEED_BOOKS_URL, SPEED_LEDGER_URL, SPEED_PLAIN_LEDGER_URL } from './servers/hand-speed.js'
import type { CapturedBody } from './servers/limit.js'
import { FLOW_ONLY } from './servers/options.js'
import type { BenchSettings } from './settings.js'

const TIME_ZONE = 'Europe/Paris'

/** What one comparison measures: the gateway's URLs, and the speed route's for the same bodies. */
interface Page {
  readonly id: string
  readonly label: string
  readonly gateway: readonly string[]
  readonly speed: readonly string[]
  readonly headers: Record<string, string>
  /** Targets of the gateway as shipped (its answers kept), as a fraction of the speed route and of the limit. */
  readonly targets: { readonly speed?: number, readonly limit: number }
  /** Targets of the gateway answering every request from scratch (RESPONSE_CACHE_MB=0), the same way. */
  readonly fromScratch: { readonly speed: number, readonly limit?: number }
}

const BOOK_PAGES = [1, 50, 100, 150, 200]
const LEDGER_OFFSETS = [0, 300, 600, 900, 1150]

const PAGES: readonly Page[] = [
  {
    id: 'books-agent',
    label: 'a 50-book agent page',
    gateway: BOOK_PAGES.map((page) => `/books?page=${page}&limit=50`),
    speed: BOOK_PAGES.map((page) => `${SPEED_BOOKS_URL}?page=${page}&limit=50`),
    headers: AGENT,
    targets: { speed: 0.8, limit: 0.12 },
    fromScratch: { speed: 0.8, limit: 0.12 }
  },
  {
    id: 'ledger-agent',
    label: 'a 50-entry ledger agent page',
    gateway: LEDGER_OFFSETS.map((offset) => `/ledger?offset=${offset}&limit=50`),
    speed: LEDGER_OFFSETS.map((offset) => `${SPEED_LEDGER_URL}?offset=${offset}&limit=50`),
    headers: AGENT,
    targets: { speed: 0.8, limit: 0.12 },
    fromScratch: { speed: 0.8, limit: 0.12 }
  },
  {
    id: 'ledger-plain',
    label: 'the 1,240-entry plain ledger',
    gateway: ['/ledger'],
    speed: [SPEED_PLAIN_LEDGER_URL],
    headers: AUTH,
    targets: { limit: 0.08 },
    fromScratch: { speed: 0.8 }
  }
]

export async function limitScenario (databasePath: string, key: string, dir: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const rows: Row[] = []
  const verdicts: Verdict[] = []
  const summary: Record<string, unknown> = { timeZone: TIME_ZONE }
  for (const page of PAGES) {
    const bodiesPath = join(dir, `${page.id}-bodies.json`)
    const subjects = [
      { id: 'gateway', server: 'gateway', label: `gateway, ${page.label}`, paths: page.gateway, headers: page.headers },
      { id: 'flow', server: 'flow', label: 'the gateway reading every answer again (RESPONSE_CACHE_MB=0)', paths: page.gateway, headers: page.headers },
      { id: 'speed', server: 'speed', label: 'hand-written for speed, the same', paths: page.speed, headers: page.headers },
      { id: 'limit', server: 'limit', label: 'the same bytes from memory (the limit)', paths: page.gateway, headers: page.headers }
    ] as const
    log(`against the limit, ${page.label}: ${subjects.map((subject) => subject.label).join('; ')}`)
    let reference: CapturedBody[] | undefined
    const runs = await measureInRounds(subjects, {
      start: async (kind) => {
        const env = { BENCH_TIME_ZONE: TIME_ZONE, BENCH_BODIES: bodiesPath }
        return kind === 'flow' ? await startServer('gateway', databasePath, key, { ...env, ...FLOW_ONLY }) : await startServer(kind as ServerKind, databasePath, key, env)
      },
      check: async (subject, server) => {
        const bodies = await captured(server, subject.paths, page.gateway, subject.headers)
        if (reference === undefined) {
          // The gateway's bodies: the reference, and what the limit server will send.
          reference = bodies
          writeFileSync(bodiesPath, JSON.stringify(bodies))
          return
        }
        bodies.forEach((body, i) => {
          if (body.body !== reference![i].body || body.contentType !== reference![i].contentType) {
            throw new Error(`${subject.label}: ${subject.paths[i]} differs from the gateway's ${page.gateway[i]} (${body.body.length} vs ${reference![i].body.length} bytes, ${body.contentType}).`)
          }
        })
      }
    }, settings, log)
    const medians = loadMedians(runs)
    const toSpeed = throughputRatio(runs, 'gateway', 'speed')
    const toLimit = throughputRatio(runs, 'gateway', 'limit')
    const flowToSpeed = throughputRatio(runs, 'flow', 'speed')
    const flowToLimit = throughputRatio(runs, 'flow', 'limit')
    // How much of its CPU the limit's server used: near all of it, its req/s is its own; well short,
    // the load generator set it, and a ratio to it by req/s reads higher than by CPU.
    const limitBusy = median(runs.limit.map((result) => result.rps * result.cpuUs / 1e6))
    const busy = `the limit's server busy ${Math.round(limitBusy * 100)} % of its CPU`
    const perRound = (subject: string, other: string) => runs[subject].map((result, i) => round(result.rps / runs[other][i].rps)).join(', ')
    const ratios = { gateway: { 'x speed': round(toSpeed.rps), 'x limit': round(toLimit.rps) }, flow: { 'x speed': round(flowToSpeed.rps), 'x limit': round(flowToLimit.rps) } } as Record<string, Record<string, number>>
    for (const subject of subjects) {
      rows.push({
        scenario: '6 against the limit',
        subject: subject.label,
        figures: { ...loadFigures(medians[subject.id]), ...ratios[subject.id] }
      })
    }
    // Each verdict is the gateway's as shipped; what reading the answer again costs is printed beside it.
    const flow = (other: string, ratio: { rps: number }) => `read again every time: ${round(ratio.rps)} x, rounds ${perRound('flow', other)}`
    if (page.targets.speed !== undefined) {
      verdicts.push({
        target: `${page.label} >= ${page.targets.speed} x the route hand-written for speed (req/s)`,
        measured: `${round(toSpeed.rps)} x (by CPU ${round(toSpeed.cpu)} x; rounds ${perRound('gateway', 'speed')}; ${flow('speed', flowToSpeed)})`,
        holds: toSpeed.rps >= page.targets.speed
      })
    }
    verdicts.push({
      target: `${page.label} >= ${page.targets.limit} x the limit, the same bytes from memory (req/s)`,
      measured: `${round(toLimit.rps)} x (by CPU ${round(toLimit.cpu)} x; rounds ${perRound('gateway', 'limit')}; x speed ${round(toSpeed.rps)}; ${flow('limit', flowToLimit)}; ${busy})`,
      holds: toLimit.rps >= page.targets.limit
    })
    // From scratch: what a request whose answer is not kept (a walk's next page, a new filter) costs.
    verdicts.push({
      target: `${page.label}, answered from scratch (RESPONSE_CACHE_MB=0), >= ${page.fromScratch.speed} x the route hand-written for speed (req/s)`,
      measured: `${round(flowToSpeed.rps)} x (by CPU ${round(flowToSpeed.cpu)} x; rounds ${perRound('flow', 'speed')})`,
      holds: flowToSpeed.rps >= page.fromScratch.speed
    })
    if (page.fromScratch.limit !== undefined) {
      verdicts.push({
        target: `${page.label}, answered from scratch, >= ${page.fromScratch.limit} x the limit (req/s)`,
        measured: `${round(flowToLimit.rps)} x (by CPU ${round(flowToLimit.cpu)} x; rounds ${perRound('flow', 'limit')}; ${busy})`,
        holds: flowToLimit.rps >= page.fromScratch.limit
      })
    }
    summary[page.id] = { subjects: Object.fromEntries(subjects.map((subject) => [subject.id, { label: subject.label, median: medians[subject.id], rounds: runs[subject.id] }])), toSpeed, toLimit, flowToSpeed, flowToLimit, limitBusy }
  }
  return { rows, verdicts, summary }
}

/** What `server` answers at each of `paths`, recorded under the gateway's URL it stands for. */
async function captured (server: ServerProcess, paths: readonly string[], as: readonly string[], headers: Record<string, string>): Promise<CapturedBody[]> {
  return await Promise.all(paths.map(async (path, i) => {
    const response = await fetch(server.url + path, { headers })
    const body = await response.text()
    if (response.status !== 200) throw new Error(`GET ${server.url}${path}: ${response.status} ${body.slice(0, 300)}`)
    return { url: as[i], contentType: response.headers.get('content-type') ?? '', body }
  }))
}
