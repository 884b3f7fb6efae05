// Scenario 1: 50-row pages of a 10,000-row table, end to end over loopback. The gateway's agent
// envelope (as shipped, counted on every request, and without the cross-cutting plugins), its
// plain list, and the two hand-written references, each server in its own process, bytes
// compared before anything is measured, then measured in alternation (see alternate.ts).
import { startServer, type ServerProcess } from './child.js'
import { AGENT, AUTH, body } from './http.js'
import { loadFigures, loadMedians, measureInRounds, throughputRatio } from './alternate.js'
import type { LoadResult } from './load.js'
import { round, type Row, type Verdict } from './report.js'
import type { ServerKind } from './server.js'
import { UNCACHED_URL } from './servers/gateway.js'
import { AGENT_URL } from './servers/hand-fastify.js'
import type { BenchSettings } from './settings.js'
import { FLOW_ONLY } from './servers/options.js'

/** Pages spread over the table, cycled by every connection, so no single offset is favoured. */
const PAGES = [1, 50, 100, 150, 200]

interface Subject {
  readonly id: string
  readonly kind: ServerKind
  readonly label: string
  /** Which bodies must be byte-identical to which. */
  readonly compares: 'agent' | 'plain'
  readonly paths: readonly string[]
  readonly headers: Record<string, string>
  /** Answered this status, not 200, and not compared: a revalidation's 304. */
  readonly status?: number
}

/**
 * A plain client revalidating the list it holds. Its tag is the serving process's own (a SQLite
 * store names its opening in it), so it is read from each round's fresh gateway as it starts.
 */
const REVALIDATING: Record<string, string> = { ...AUTH }

const pages = (url: string) => PAGES.map((page) => `${url}?page=${page}&limit=50`)

const SUBJECTS: readonly Subject[] = [
  { id: 'gateway-agent', kind: 'gateway', label: 'gateway, agent envelope', compares: 'agent', paths: pages('/books'), headers: AGENT },
  { id: 'fastify-agent', kind: 'fastify', label: 'hand-written Fastify, agent', compares: 'agent', paths: pages(AGENT_URL), headers: AUTH },
  { id: 'gateway-agent-uncached', kind: 'gateway', label: 'gateway, agent, COUNT every request', compares: 'agent', paths: pages(UNCACHED_URL), headers: AGENT },
  { id: 'core-agent', kind: 'gateway-core', label: 'gateway core (no cross-cutting plugins), agent', compares: 'agent', paths: pages('/books'), headers: AGENT },
  { id: 'express-agent', kind: 'express', label: 'hand-written Express 5, agent', compares: 'agent', paths: pages(AGENT_URL), headers: AUTH },
  { id: 'gateway-plain', kind: 'gateway', label: 'gateway, plain list (10,000 rows, streamed)', compares: 'plain', paths: ['/books'], headers: AUTH },
  { id: 'gateway-plain-unchanged', kind: 'gateway', label: 'gateway, the same plain list revalidated (304)', compares: 'plain', paths: ['/books'], headers: REVALIDATING, status: 304 },
  { id: 'fastify-plain', kind: 'fastify', label: 'hand-written Fastify, plain list', compares: 'plain', paths: ['/books'], headers: AUTH },
  { id: 'express-plain', kind: 'express', label: 'hand-written Express 5, plain list', compares: 'plain', paths: ['/books'], headers: AUTH }
]

export interface EndToEndResult {
  readonly rows: Row[]
  readonly verdicts: Verdict[]
  readonly summary: Record<string, unknown>
}

export async function endToEnd (databasePath: string, key: string, settings: BenchSettings, log: (line: string) => void): Promise<EndToEndResult> {
  const expected: Partial<Record<Subject['compares'], string[]>> = {}
  const runs: Record<string, LoadResult[]> = {}
  for (const compares of ['agent', 'plain'] as const) {
    const subjects = SUBJECTS.filter((subject) => subject.compares === compares)
    log(`end to end, ${compares}: ${subjects.map((subject) => subject.label).join('; ')}`)
    Object.assign(runs, await measureInRounds(subjects.map((subject) => ({ ...subject, server: subject.kind })), {
      start: async (kind) => {
        const server = await startServer(kind, databasePath, key, FLOW_ONLY)
        if (kind === 'gateway') REVALIDATING['if-none-match'] = await plainTag(server.url + '/books')
        return server
      },
      // Bytes first: nothing is measured that does not serve exactly what the gateway serves.
      check: async (subject, server) => { await assertSameBodies(server, subject, expected) }
    }, settings, log))
  }
  return summarize(runs, settings)
}

function summarize (runs: Record<string, LoadResult[]>, settings: BenchSettings): EndToEndResult {
  const medians = loadMedians(runs)
  const ratio = (a: string, b: string) => throughputRatio(runs, a, b).rps
  const cpuRatio = (a: string, b: string) => throughputRatio(runs, a, b).cpu
  const ratios = {
    agentToFastify: ratio('gateway-agent', 'fastify-agent'),
    agentToExpress: ratio('gateway-agent', 'express-agent'),
    uncachedAgentToFastify: ratio('gateway-agent-uncached', 'fastify-agent'),
    coreAgentToFastify: ratio('core-agent', 'fastify-agent'),
    plainToFastify: ratio('gateway-plain', 'fastify-plain'),
    plainToExpress: ratio('gateway-plain', 'express-plain'),
    /** CPU per revalidation over CPU per full stream. */
    unchangedToPlainCpu: cpuRatio('gateway-plain', 'gateway-plain-unchanged'),
    cpu: {
      agentToFastify: cpuRatio('gateway-agent', 'fastify-agent'),
      agentToExpress: cpuRatio('gateway-agent', 'express-agent'),
      uncachedAgentToFastify: cpuRatio('gateway-agent-uncached', 'fastify-agent'),
      coreAgentToFastify: cpuRatio('core-agent', 'fastify-agent'),
      plainToFastify: cpuRatio('gateway-plain', 'fastify-plain'),
      plainToExpress: cpuRatio('gateway-plain', 'express-plain')
    }
  }
  const against = (fastify: number, express?: number, cpuFastify?: number, cpuExpress?: number) => ({
    'x Fastify': round(fastify),
    ...(express === undefined ? {} : { 'x Express': round(express) }),
    ...(cpuFastify === undefined ? {} : { 'CPU x Fastify': round(cpuFastify) }),
    ...(cpuExpress === undefined ? {} : { 'CPU x Express': round(cpuExpress) })
  })
  const extra: Record<string, Record<string, number>> = {
    'gateway-agent': against(ratios.agentToFastify, ratios.agentToExpress, ratios.cpu.agentToFastify, ratios.cpu.agentToExpress),
    'gateway-agent-uncached': against(ratios.uncachedAgentToFastify, undefined, ratios.cpu.uncachedAgentToFastify),
    'core-agent': against(ratios.coreAgentToFastify, undefined, ratios.cpu.coreAgentToFastify),
    'gateway-plain': against(ratios.plainToFastify, ratios.plainToExpress, ratios.cpu.plainToFastify, ratios.cpu.plainToExpress)
  }
  const rows: Row[] = SUBJECTS.map((subject) => ({
    scenario: '1 end to end, 10,000 rows',
    subject: subject.label,
    figures: {
      ...loadFigures(medians[subject.id]),
      ...extra[subject.id]
    }
  }))
  return {
    rows,
    verdicts: [
      {
        target: 'agent envelope >= 0.9 x hand-written Fastify (req/s)',
        measured: `${round(ratios.agentToFastify)} x (by CPU per request ${round(ratios.cpu.agentToFastify)} x; gateway core ${round(ratios.coreAgentToFastify)} x, by CPU ${round(ratios.cpu.coreAgentToFastify)} x; COUNT on every request ${round(ratios.uncachedAgentToFastify)} x)`,
        holds: ratios.agentToFastify >= 0.9
      },
      {
        target: 'agent envelope above hand-written Express 5 (req/s)',
        measured: `${round(ratios.agentToExpress)} x (by CPU per request ${round(ratios.cpu.agentToExpress)} x)`,
        holds: ratios.agentToExpress > 1
      },
      {
        target: 'a revalidated unchanged plain list (304) costs <= 0.05 x the full stream (CPU per request)',
        measured: `${round(ratios.unchangedToPlainCpu)} x (${round(medians['gateway-plain-unchanged'].cpuUs)} us against ${round(medians['gateway-plain'].cpuUs)} us)`,
        holds: ratios.unchangedToPlainCpu <= 0.05
      },
      {
        target: 'plain list of 10,000 rows (streamed) >= 0.9 x hand-written Fastify loading it whole (req/s)',
        measured: `${round(ratios.plainToFastify)} x (rounds ${runs['gateway-plain'].map((result, i) => round(result.rps / runs['fastify-plain'][i].rps)).join(', ')}; by CPU ${round(ratios.cpu.plainToFastify)} x); ${round(ratios.plainToExpress)} x Express (by CPU ${round(ratios.cpu.plainToExpress)} x)`,
        holds: ratios.plainToFastify >= 0.9
      }
    ],
    summary: {
      table: '10,000 rows, 50-row pages',
      pages: PAGES,
      connections: settings.connections,
      subjects: Object.fromEntries(SUBJECTS.map((subject) => [subject.id, { label: subject.label, median: medians[subject.id], rounds: runs[subject.id] }])),
      ratios
    }
  }
}

/** Every body `subject` serves equals, byte for byte, what the first server of its kind served. */
async function assertSameBodies (server: ServerProcess, subject: Subject, expected: Partial<Record<Subject['compares'], string[]>>): Promise<void> {
  if (subject.status !== undefined) {
    const { status } = await fetch(server.url + subject.paths[0], { headers: subject.headers })
    if (status !== subject.status) throw new Error(`${subject.label}: answered ${status}, not ${subject.status}.`)
    return
  }
  const bodies = await Promise.all(subject.paths.map((path) => body(server.url + path, subject.headers)))
  const reference = expected[subject.compares]
  if (reference === undefined) {
    // The first bodies become the reference: make sure they are the pages asked for.
    if (subject.compares === 'agent' && !bodies.every((text) => JSON.parse(text).items.length === 50)) throw new Error(`${subject.label}: a page is not 50 items.`)
    expected[subject.compares] = bodies
    return
  }
  bodies.forEach((text, i) => {
    if (text !== reference[i]) throw new Error(`${subject.label}: ${subject.paths[i]} differs from the reference body (${text.length} vs ${reference[i].length} bytes).`)
  })
}

/** The ETag a plain GET of `url` carries. */
async function plainTag (url: string): Promise<string> {
  const response = await fetch(url, { headers: AUTH })
  await response.arrayBuffer()
  const tag = response.headers.get('etag')
  if (tag === null) throw new Error(`GET ${url}: a plain list without an ETag.`)
  return tag
}
