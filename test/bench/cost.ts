// Scenario 11: cost per row and per request, as the work grows. CPU microseconds per request for
// agent pages of 1, 10, 50, 200 and 500 ledger entries and for plain lists of 100 and 1,240 ledger
// entries and 10,000 books, every answer read from scratch (RESPONSE_CACHE_MB=0), from the gateway
// and from the route hand-written for speed, in alternating rounds (alternate.ts); then, for each
// audience, the fixed and per-row parts fitted to them by least squares (us = fixed + rows x per row),
// through the ledger's sizes only: a book is another width of row.
// On PostgreSQL (BENCH_STORE=postgres) the speed route reads the same schema (servers/speed-reads.ts).
import { loadMedians, measureInRounds } from './alternate.js'
import { startServer } from './child.js'
import { AGENT, AUTH } from './http.js'
import { round, type Row, type Verdict } from './report.js'
import type { BenchSettings } from './settings.js'
import { SPEED_LEDGER_URL, SPEED_PLAIN_BOOKS_URL, SPEED_PLAIN_LEDGER_URL } from './servers/hand-speed.js'
import { FLOW_ONLY } from './servers/options.js'

const TIME_ZONE = 'Europe/Paris'
/** The 100th ledger entry's instant: an entry every six hours from 1 January 2026. */
const HUNDREDTH = '2026-01-25T18:00:00Z'

interface Size {
  readonly id: string
  readonly audience: 'agent' | 'plain'
  /** Which record's rows: a line is fitted only through sizes of one record (rows of another width cost otherwise). */
  readonly record: 'ledger' | 'books'
  readonly rows: number
  readonly gateway: string
  readonly speed: string
}

const AGENT_ROWS = [1, 10, 50, 200, 500]

const SIZES: readonly Size[] = [
  ...AGENT_ROWS.map((rows) => ({ id: `agent-${rows}`, audience: 'agent' as const, record: 'ledger' as const, rows, gateway: `/ledger?offset=0&limit=${rows}`, speed: `${SPEED_LEDGER_URL}?offset=0&limit=${rows}` })),
  { id: 'plain-100', audience: 'plain', record: 'ledger', rows: 100, gateway: `/ledger?posted_at_max=${HUNDREDTH}`, speed: `${SPEED_PLAIN_LEDGER_URL}?posted_at_max=${HUNDREDTH}` },
  { id: 'plain-1240', audience: 'plain', record: 'ledger', rows: 1240, gateway: '/ledger', speed: SPEED_PLAIN_LEDGER_URL },
  { id: 'plain-10000', audience: 'plain', record: 'books', rows: 10_000, gateway: '/books', speed: SPEED_PLAIN_BOOKS_URL }
]

export async function costScenario (databaseUrl: string, key: string, store: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const servers = ['gateway', 'speed'] as const
  const subjects = SIZES.flatMap((size) => servers.map((server) => ({
    id: `${server}-${size.id}`,
    server,
    label: `${server}, ${size.audience} ${size.rows}`,
    paths: [server === 'gateway' ? size.gateway : size.speed],
    headers: size.audience === 'agent' ? AGENT : AUTH
  })))
  log(`cost: ${SIZES.length} sizes from ${servers.join(' and ')} (${store}), every answer read from scratch`)
  const runs = await measureInRounds(subjects, {
    start: async (server) => await startServer(server, databaseUrl, key, { ...FLOW_ONLY, BENCH_TIME_ZONE: TIME_ZONE }),
    check: async (subject, server) => {
      const response = await fetch(server.url + subject.paths[0], { headers: subject.headers })
      const text = await response.text()
      const size = SIZES.find((each) => subject.id.endsWith(`-${each.id}`))!
      const rows = size.audience === 'agent' ? (JSON.parse(text) as { items: unknown[] }).items.length : (JSON.parse(text) as unknown[]).length
      if (response.status !== 200 || rows !== size.rows) throw new Error(`${subject.label}: ${response.status}, ${rows} rows where ${size.rows} were expected.`)
    }
  }, settings, log)
  const medians = loadMedians(runs)
  const us = (server: string, size: Size) => medians[`${server}-${size.id}`].cpuUs
  const scenario = '11 cost per request and per row, from scratch'
  const rows: Row[] = SIZES.map((size) => ({
    scenario,
    subject: `${size.audience} ${size.rows.toLocaleString('en-US')} ${size.record === 'ledger' ? 'ledger entries' : 'books'}`,
    figures: Object.fromEntries(servers.flatMap((server) => [[`${server} CPU us/req`, round(us(server, size), 1)], [`${server} us/row`, round(us(server, size) / size.rows, 2)]]))
  }))
  // A line through the sizes of one audience and one record: the 10,000 books stand alone.
  const groups = [...new Set(SIZES.map((size) => `${size.audience} ${size.record}`))].filter((group) => SIZES.filter((size) => `${size.audience} ${size.record}` === group).length >= 2)
  const fits = Object.fromEntries(groups.flatMap((group) => servers.map((server) => {
    const points = SIZES.filter((size) => `${size.audience} ${size.record}` === group).map((size) => ({ x: size.rows, y: us(server, size) }))
    return [`${server}, ${group}`, fitted(points)]
  })))
  for (const [name, fit] of Object.entries(fits)) {
    rows.push({ scenario, subject: `fitted, ${name}: fixed + rows x per row`, figures: { 'fixed us': round(fit.fixed, 1), 'us per row': round(fit.perRow, 3) } })
  }
  return {
    rows,
    verdicts: [{
      target: `what a request costs as the work grows (${store}), no target`,
      measured: Object.entries(fits).map(([name, fit]) => `${name}: ${round(fit.fixed, 1)} us + ${round(fit.perRow, 3)} us a row`).join('; '),
      holds: null
    }],
    summary: { store, timeZone: TIME_ZONE, sizes: SIZES, medians, fits, rounds: runs }
  }
}

/** The least-squares line through `points`: its value at no rows, and its slope. */
export function fitted (points: ReadonlyArray<{ x: number, y: number }>): { fixed: number, perRow: number } {
  const n = points.length
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / n
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / n
  const covariance = points.reduce((sum, point) => sum + (point.x - meanX) * (point.y - meanY), 0)
  const variance = points.reduce((sum, point) => sum + (point.x - meanX) ** 2, 0)
  const perRow = covariance / variance
  return { fixed: meanY - perRow * meanX, perRow }
}
