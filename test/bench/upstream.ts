// Scenario 6: rows read from an upstream HTTP JSON API, the demo upstream with 100,000 products in a
// process of its own on the load generator's CPU, shared by every server of a round. An agent page
// through the gateway against a hand-written server that fetches the same upstream page and projects
// it; the plain walk of the whole list against fetching every page and concatenating the bytes.
// Forked with a kind, this file is also the server under test: the gateway, or the references.
import { fork, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { realpathSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { DateTime } from 'luxon'
import { Pool } from 'undici'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import type { UpstreamProduct } from '../../demo/upstream.js'
import { loadFigures, loadMedians, rotate, throughputRatio } from './alternate.js'
import { cpuSecondsOf, memoryOf, ready, resetPeak } from './child.js'
import { serverPinning } from './cpus.js'
import { AGENT, AUTH, KEY, body } from './http.js'
import { measureLoad, warmLoad, type LoadResult } from './load.js'
import { median, round, type Row, type Verdict } from './report.js'
import { BENCH_LOGGER } from './servers/options.js'
import type { BenchSettings } from './settings.js'
import { fetchTimed } from './stream.js'

const ROWS = 100_000
const PAGE = 100
/** Page-aligned windows spread over the list, the last one included (no next page there). */
const OFFSETS = [0, 25_000, 50_000, 75_000, 99_900]
const HAND_URL = '/hand/products'
const CONCAT_URL = '/concat/products'
const UPSTREAM_TOKEN = 'bench-upstream-token'
/** Above this share of a core, the shared upstream may be what limits the figures. */
const BUSY = 0.8
const SETTLE_SECONDS = 0.5
const SAMPLE_MS = 20
const MB = 1024 * 1024

type Kind = 'gateway' | 'reference'

interface Child {
  readonly url: string
  readonly pid: number
  stop: () => Promise<void>
}

/** One measured slice, with the share of a core the upstream used meanwhile and its CPU per request. */
interface Slice extends LoadResult {
  readonly upstreamBusy: number
  readonly upstreamUs: number
}

/**
 * Two walks on a fresh server: the first, cold (its code not yet compiled), then the measured one.
 * RSS is read from before the first to the end of the second.
 */
interface WalkRun {
  readonly coldMs: number
  readonly ttfbMs: number
  readonly totalMs: number
  readonly rowsPerSecond: number
  /** The server's CPU time per row in the measured walk, in microseconds. */
  readonly cpuUsPerRow: number
  readonly rssBeforeMb: number
  readonly rssPeakMb: number
  readonly rssGrowthMb: number
  readonly upstreamBusy: number
}

const AGENTS = [
  { id: 'gateway-agent', kind: 'gateway', label: 'gateway, agent page /products', paths: OFFSETS.map((offset) => `/products?offset=${offset}&limit=${PAGE}`) },
  { id: 'hand-agent', kind: 'reference', label: 'hand-written: fetch the page, project by hand', paths: OFFSETS.map((offset) => `${HAND_URL}?offset=${offset}&limit=${PAGE}`) }
] as const

const WALKS = [
  { id: 'gateway-walk', kind: 'gateway', label: 'gateway, plain list streamed', path: '/products' },
  { id: 'concat-walk', kind: 'reference', label: 'reference: fetch every page, concatenate', path: CONCAT_URL }
] as const

export async function upstreamScenario (dir: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const database = join(dir, 'upstream-gateway.sqlite')
  log(`upstream: checking pages and walks against ${ROWS.toLocaleString('en-US')} upstream rows`)
  const digests = await check(database)
  const agents: Record<string, Slice[]> = { 'gateway-agent': [], 'hand-agent': [] }
  const walks: Record<string, WalkRun[]> = { 'gateway-walk': [], 'concat-walk': [] }
  for (let turn = 0; turn < settings.rounds; turn++) {
    const processes = await startRound(database)
    try {
      log(`  round ${turn + 1}/${settings.rounds}: agent pages, ${settings.seconds} s each, then the walks`)
      const loaded = AGENTS.map((subject) => ({ ...subject, server: processes[subject.kind], headers: AGENT }))
      for (const subject of loaded) await warmLoad(subject.server.url, { ...settings, ...subject }, settings.warmupSeconds)
      for (const subject of rotate(loaded, turn)) {
        await warmLoad(subject.server.url, { ...settings, ...subject }, SETTLE_SECONDS)
        agents[subject.id].push(await measureSlice(subject.server, processes.upstream, { ...settings, ...subject }))
      }
      for (const subject of rotate(WALKS, turn)) {
        walks[subject.id].push(await measureWalks(processes[subject.kind], processes.upstream, subject.path, digests[subject.id]))
      }
    } finally {
      await Promise.all([processes.gateway.stop(), processes.reference.stop()])
      await processes.upstream.stop()
    }
  }
  return summarize(agents, walks, settings)
}

function summarize (agents: Record<string, Slice[]>, walks: Record<string, WalkRun[]>, settings: BenchSettings): { rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> } {
  const medians = loadMedians(agents)
  const ratio = throughputRatio(agents, 'gateway-agent', 'hand-agent')
  const agentRounds = agents['gateway-agent'].map((slice, i) => round(slice.rps / agents['hand-agent'][i].rps))
  const speedRounds = walks['gateway-walk'].map((run, i) => run.rowsPerSecond / walks['concat-walk'][i].rowsPerSecond)
  const speed = median(speedRounds)
  const coldSpeed = median(walks['gateway-walk'].map((run, i) => walks['concat-walk'][i].coldMs / run.coldMs))
  const cpuPerRow = median(walks['gateway-walk'].map((run, i) => run.cpuUsPerRow / walks['concat-walk'][i].cpuUsPerRow))
  const growth = walks['gateway-walk'].map((run) => run.rssGrowthMb)
  const busiest = Math.max(...Object.values(agents).flat().map((slice) => slice.upstreamBusy), ...Object.values(walks).flat().map((run) => run.upstreamBusy))
  const busy = (list: ReadonlyArray<{ upstreamBusy: number }>) => round(median(list.map((item) => item.upstreamBusy)) * 100, 0)
  const walkMedian = (id: string, field: keyof WalkRun) => median(walks[id].map((run) => run[field]))
  const rows: Row[] = [
    ...AGENTS.map((subject) => ({
      scenario: `6 upstream agent page, ${PAGE} of ${ROWS.toLocaleString('en-US')} products`,
      subject: subject.label,
      figures: {
        ...loadFigures(medians[subject.id]),
        'upstream CPU %': busy(agents[subject.id]),
        'upstream us/req': median(agents[subject.id].map((slice) => slice.upstreamUs)),
        ...(subject.id === 'gateway-agent' ? { 'x hand': round(ratio.rps), 'CPU x hand': round(ratio.cpu) } : {})
      }
    })),
    ...WALKS.map((subject) => ({
      scenario: `6 upstream plain walk, ${ROWS.toLocaleString('en-US')} products`,
      subject: subject.label,
      figures: {
        'cold ms': walkMedian(subject.id, 'coldMs'),
        'TTFB ms': walkMedian(subject.id, 'ttfbMs'),
        'total ms': walkMedian(subject.id, 'totalMs'),
        'rows/s': walkMedian(subject.id, 'rowsPerSecond'),
        'CPU us/row': walkMedian(subject.id, 'cpuUsPerRow'),
        'RSS +MB': walkMedian(subject.id, 'rssGrowthMb'),
        'RSS peak MB': walkMedian(subject.id, 'rssPeakMb'),
        'upstream CPU %': busy(walks[subject.id]),
        ...(subject.id === 'gateway-walk' ? { 'x concat': round(speed) } : {})
      }
    }))
  ]
  const verdicts: Verdict[] = [
    {
      target: `upstream agent page (${PAGE} rows) >= 0.8 x a hand-written fetch-and-project server (req/s)`,
      measured: `${round(ratio.rps)} x (by CPU per request ${round(ratio.cpu)} x; rounds ${agentRounds.join(', ')})`,
      holds: ratio.rps >= 0.8
    },
    {
      target: `plain walk of ${ROWS.toLocaleString('en-US')} upstream rows (twice, from a fresh process): gateway RSS grows < 64 MB`,
      measured: `+${round(median(growth), 1)} MB median, +${round(Math.max(...growth), 1)} MB worst round`,
      holds: Math.max(...growth) < 64
    },
    {
      target: 'plain walk (the second on each server): rows/s >= 0.7 x fetching every upstream page and concatenating',
      measured: `${round(speed)} x (rounds ${speedRounds.map((value) => round(value)).join(', ')}; first walk ${round(coldSpeed)} x; server CPU per row ${round(cpuPerRow, 1)} x)`,
      holds: speed >= 0.7
    },
    {
      target: `the shared upstream is not the bottleneck (under ${BUSY * 100}% of a core in every slice and walk)`,
      measured: `at most ${round(busiest * 100, 0)}% of a core${busiest < BUSY ? '' : ': the upstream was the bottleneck, and the ratios above understate the difference between the servers'}`,
      holds: busiest < BUSY
    }
  ]
  return {
    rows,
    verdicts,
    summary: {
      upstreamRows: ROWS,
      offsets: OFFSETS,
      connections: settings.connections,
      agent: { subjects: Object.fromEntries(AGENTS.map((s) => [s.id, { label: s.label, median: medians[s.id], rounds: agents[s.id] }])), ratio, perRound: agentRounds },
      walk: { subjects: Object.fromEntries(WALKS.map((s) => [s.id, { label: s.label, rounds: walks[s.id] }])), ratio: speed, perRound: speedRounds, coldRatio: coldSpeed, cpuPerRowRatio: cpuPerRow },
      upstreamBusiest: busiest
    }
  }
}

/**
 * Before anything is measured, on processes of their own: every agent page of the hand-written
 * server equals the gateway's, and both walks hold the 100,000 rows in order. Returns each walk's
 * digest, which every measured walk must match.
 */
async function check (database: string): Promise<Record<string, string>> {
  const processes = await startRound(database)
  try {
    for (const offset of OFFSETS) {
      const gateway = JSON.parse(await body(`${processes.gateway.url}/products?offset=${offset}&limit=${PAGE}`, AGENT)) as { items: unknown[] }
      const hand = JSON.parse(await body(`${processes.reference.url}${HAND_URL}?offset=${offset}&limit=${PAGE}`, AGENT)) as unknown
      if (gateway.items.length !== Math.min(PAGE, ROWS - offset)) throw new Error(`The gateway's agent page at offset ${offset} holds ${gateway.items.length} items.`)
      if (!isDeepStrictEqual(hand, gateway)) throw new Error(`The hand-written agent page at offset ${offset} differs from the gateway's.`)
    }
    const digests: Record<string, string> = {}
    for (const subject of WALKS) {
      const text = await body(processes[subject.kind].url + subject.path, AUTH)
      const rows = JSON.parse(text) as Array<{ sku: string }>
      const stray = rows.findIndex((row, i) => row.sku !== `SKU-${String(i + 1).padStart(5, '0')}`)
      if (rows.length !== ROWS || stray !== -1) {
        throw new Error(`${subject.label}: ${rows.length} rows, from ${rows[0]?.sku} to ${rows.at(-1)?.sku}${stray === -1 ? '' : `, row ${stray} out of order`}.`)
      }
      digests[subject.id] = createHash('sha256').update(text).digest('hex')
    }
    return digests
  } finally {
    await Promise.all([processes.gateway.stop(), processes.reference.stop()])
    await processes.upstream.stop()
  }
}

async function measureSlice (server: Child, upstream: Child, options: Parameters<typeof measureLoad>[2]): Promise<Slice> {
  const before = cpuSecondsOf(upstream.pid)
  const started = performance.now()
  const result = await measureLoad(server.url, server.pid, options)
  const cpu = cpuSecondsOf(upstream.pid) - before
  return { ...result, upstreamBusy: cpu / ((performance.now() - started) / 1000), upstreamUs: (cpu * 1e6) / result.requests }
}

/**
 * A cold walk, then the measured one, the server's RSS sampled throughout (and its peak, where VmHWM
 * can be reset), as stream.ts does; each walk's body must hash to the checked one.
 */
async function measureWalks (server: Child, upstream: Child, path: string, digest: string): Promise<WalkRun> {
  const before = memoryOf(server.pid).rss
  const reset = resetPeak(server.pid)
  let sampled = before
  const sampler = setInterval(() => { sampled = Math.max(sampled, memoryOf(server.pid).rss) }, SAMPLE_MS)
  try {
    const cold = await fetchTimed(server.url + path, AUTH)
    const cpuBefore = cpuSecondsOf(server.pid)
    const upstreamBefore = cpuSecondsOf(upstream.pid)
    const fetched = await fetchTimed(server.url + path, AUTH)
    const seconds = fetched.totalMs / 1000
    const cpu = cpuSecondsOf(server.pid) - cpuBefore
    const upstreamCpu = cpuSecondsOf(upstream.pid) - upstreamBefore
    if (cold.digest !== digest || fetched.digest !== digest) throw new Error(`GET ${path}: a measured walk differs from the checked one.`)
    const peak = Math.max(sampled, reset ? memoryOf(server.pid).peak : 0)
    return {
      coldMs: cold.totalMs,
      ttfbMs: fetched.ttfbMs,
      totalMs: fetched.totalMs,
      rowsPerSecond: ROWS / seconds,
      cpuUsPerRow: (cpu * 1e6) / ROWS,
      rssBeforeMb: before / MB,
      rssPeakMb: peak / MB,
      rssGrowthMb: (peak - before) / MB,
      upstreamBusy: upstreamCpu / seconds
    }
  } finally {
    clearInterval(sampler)
  }
}

/** A fresh upstream (on this process's CPU, the load generator's), and the two servers reading it (on the servers' CPU). */
async function startRound (database: string): Promise<{ upstream: Child, gateway: Child, reference: Child }> {
  const upstream = await startUpstream()
  try {
    const [gateway, reference] = await Promise.all([startServed('gateway', upstream.url, database), startServed('reference', upstream.url, database)])
    return { upstream, gateway, reference }
  } catch (error) {
    await upstream.stop()
    throw error
  }
}

async function startUpstream (): Promise<Child> {
  const child = fork(join(import.meta.dirname, '../../demo/upstream-server.js'), [], {
    env: { ...process.env, UPSTREAM_HOST: '127.0.0.1', UPSTREAM_PORT: '0', UPSTREAM_ROWS: String(ROWS), UPSTREAM_TOKEN },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc']
  })
  // It says where it listens in one line: `demo upstream listening at http://127.0.0.1:<port>`.
  const [line] = await listening(child, 'the demo upstream', once(createInterface({ input: child.stdout! }), 'line') as Promise<[string]>)
  const url = /(http:\/\/\S+)/.exec(line)?.[1]
  if (url === undefined) throw new Error(`The demo upstream said ${JSON.stringify(line)}.`)
  return { url, pid: child.pid!, stop: () => stop(child) }
}

async function startServed (kind: Kind, origin: string, database: string): Promise<Child> {
  const child = fork(fileURLToPath(import.meta.url), [kind], {
    ...serverPinning(),
    env: { ...process.env, BENCH_UPSTREAM: origin, BENCH_DATABASE: database },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const [{ port }] = await listening(child, `the ${kind} server`, once(child, 'message') as Promise<[{ port: number }]>)
  const url = `http://127.0.0.1:${port}`
  if (kind === 'gateway') await ready(`${url}/readyz`)
  return { url, pid: child.pid!, stop: () => stop(child) }
}

async function listening<T> (child: ChildProcess, name: string, ready: Promise<T>): Promise<T> {
  return await Promise.race([ready, once(child, 'exit').then(([code]) => { throw new Error(`${name} exited with ${String(code)} before listening.`) })])
}

async function stop (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

// The process side: a forked kind listens on loopback and tells the suite its port over IPC.

async function serve (kind: Kind): Promise<void> {
  const origin = process.env.BENCH_UPSTREAM!
  const server = kind === 'gateway' ? await gatewayServer(origin, process.env.BENCH_DATABASE!) : referenceServer(origin)
  await server.listen({ port: 0, host: '127.0.0.1' })
  process.once('SIGTERM', () => { server.close().finally(() => process.exit(0)) })
  process.send!({ port: (server.server.address() as AddressInfo).port })
}

/** The gateway as shipped (demo/app.ts) with its products read from the upstream; ceilings as servers/gateway.ts sets them. */
async function gatewayServer (upstreamUrl: string, databaseUrl: string): Promise<FastifyInstance> {
  const { default: app } = await import('../../demo/app.js')
  const server = Fastify({ logger: BENCH_LOGGER })
  await server.register(fp(app), {
    databaseUrl,
    timeZone: 'UTC',
    apiKeys: [KEY],
    rateLimitMax: 1_000_000_000,
    loadShedding: { maxEventLoopDelay: 600_000 },
    upstreamUrl,
    upstreamToken: UPSTREAM_TOKEN
  })
  return server
}

const AVAILABILITY: Readonly<Record<string, string>> = { in_stock: 'In stock', backorder: 'On back order', discontinued: 'Discontinued' }

/** A product as an agent gets it, written out: the same luxon rendering as hand.ts uses. */
function handProduct (row: UpstreamProduct): Record<string, string> {
  const cents = row.pricing.amount_cents
  return {
    sku: row.sku,
    name: row.name,
    price: `EUR ${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    listed_at: DateTime.fromISO(row.listed_at, { zone: 'UTC', locale: 'en-US' }).toFormat('dd LLL yyyy HH:mm ZZ'),
    availability: AVAILABILITY[row.availability] ?? row.availability
  }
}

const AgentPage = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: { type: 'object', properties: Object.fromEntries(['sku', 'name', 'price', 'listed_at', 'availability'].map((name) => [name, { type: 'string' }])) }
    },
    has_more: { type: 'boolean' },
    returned: { type: 'integer' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    next_offset: { type: 'integer' },
    hint: { type: 'string' }
  }
}

/**
 * The references, by hand: one undici pool to the upstream (as many connections as the gateway's
 * client), an agent page as the upstream page it is aligned with, projected; and every page
 * fetched (the next while this one is written, as the gateway does) and written as it came.
 */
function referenceServer (origin: string): FastifyInstance {
  const pool = new Pool(origin, { connections: 16 })
  const headers = { accept: 'application/json', authorization: `Bearer ${UPSTREAM_TOKEN}` }
  const fetchPage = async (page: number) => {
    const answer = await pool.request({ path: `/page/products?page=${page}&per_page=${PAGE}`, method: 'GET', headers })
    if (answer.statusCode !== 200) throw new Error(`The upstream answered ${answer.statusCode}.`)
    return { text: await answer.body.text(), next: String(answer.headers.link).includes('rel="next"') }
  }
  const server = Fastify({ logger: BENCH_LOGGER })
  server.addHook('onClose', async () => { await pool.close() })
  const query = { type: 'object', properties: { offset: { type: 'integer', minimum: 0, multipleOf: PAGE } } }
  server.get(HAND_URL, { schema: { querystring: query, response: { 200: AgentPage } } }, async (request, reply) => {
    const { offset = 0 } = request.query as { offset?: number }
    const { text, next } = await fetchPage(offset / PAGE + 1)
    const items = (JSON.parse(text) as UpstreamProduct[]).map(handProduct)
    const tail = next ? { next_offset: offset + items.length, hint: `Send offset=${offset + items.length} to get the next products; repeat until has_more is false.` } : {}
    reply.type(`${AGENT_MEDIA_TYPE}; charset=utf-8`)
    return { items, has_more: next, returned: items.length, offset, limit: PAGE, ...tail }
  })
  server.get(CONCAT_URL, async (_request, reply) => {
    reply.hijack()
    await concatenate(fetchPage, reply.raw)
  })
  return server
}

async function concatenate (fetchPage: (page: number) => Promise<{ text: string, next: boolean }>, response: ServerResponse): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
  let page = 1
  let pending = fetchPage(page)
  let separator = '['
  for (;;) {
    const { text, next } = await pending
    if (next) pending = fetchPage(++page)
    const rows = text.slice(1, -1)
    if (rows !== '' && !response.write(separator + rows)) await once(response, 'drain')
    if (rows !== '') separator = ','
    if (!next) break
  }
  response.end(separator === '[' ? '[]' : ']')
}

if (realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await serve(process.argv[2] as Kind)
