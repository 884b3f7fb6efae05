// `npm run dashboard:picture`: a picture of the Grafana dashboard's panels (docs/grafana/
// audience-gateway.json) drawn from real scrapes, for the docs (docs/dashboard.png). No Grafana is
// involved: the built server runs as `npm start` runs it, with the demo upstream, and is sent a mix
// of traffic that changes from tick to tick (plain, agent and MCP calls, 401s and 404s, a clamped
// ledger window, upstream calls some of which fail); /metrics is scraped once a tick with a key of
// the metrics scope, each panel's query is computed from the scrapes here (rates between
// consecutive scrapes, histogram quantiles as Prometheus interpolates them), drawn as SVG line
// charts in one HTML page, and Chromium (headless, through puppeteer-core) takes its screenshot.
// Not part of `npm test`; DASHBOARD_OUT names the PNG (default docs/dashboard.png).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import puppeteer from 'puppeteer-core'
import { startDemoUpstream } from '../../demo/upstream.js'
import { startLoadServer } from '../load/server.js'
import { panelSeries, type Panel } from './panels.js'
import { page } from './svg.js'

const KEY = 'dashboard-key-0123456789'
const SCRAPER = 'dashboard-scraper-0123456789'
const TICKS = 24
const TICK_MS = 1000
const ROOT = join(import.meta.dirname, '..', '..', '..')
const DASHBOARD = join(ROOT, 'docs', 'grafana', 'audience-gateway.json')

interface Scraped { readonly at: number, readonly text: string }

async function main (): Promise<void> {
  const out = process.env.DASHBOARD_OUT ?? join(ROOT, 'docs', 'dashboard.png')
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { title: string, panels: Panel[] }
  const dir = mkdtempSync(join(tmpdir(), 'gateway-dashboard-'))
  const upstream = await startDemoUpstream({ port: 0 })
  const server = await startLoadServer({ DATABASE_URL: join(dir, 'catalogue.sqlite'), API_KEYS: `${KEY},${SCRAPER}:metrics`, UPSTREAM_URL: upstream.url, LOG_LEVEL: 'warn' })
  const scrapes: Scraped[] = []
  try {
    for (let tick = 0; tick < TICKS; tick++) {
      const started = Date.now()
      // The upstream slows down, then fails a few calls, midway: so its panels have something to show.
      upstream.faults.latencyMs = tick >= 8 && tick < 14 ? 40 : 0
      if (tick === 16) upstream.faults.fail = 6
      await traffic(server.url, tick)
      scrapes.push({ at: Date.now() / 1000, text: await scrape(server.url) })
      process.stderr.write(`tick ${tick + 1}/${TICKS}\n`)
      await sleep(Math.max(0, TICK_MS - (Date.now() - started)))
    }
  } finally {
    await server.stop()
    await upstream.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ')
  const html = page(dashboard.title, `Drawn from ${scrapes.length} scrapes of /metrics of the demo gateway (npm run dashboard:picture, ${when} UTC), one a second, under a generated mix of traffic; each panel's query computed from the scrapes, not by Grafana.`, dashboard.panels.map((panel) => ({ panel, series: panelSeries(panel, scrapes) })))
  const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] })
  try {
    const tab = await browser.newPage()
    await tab.setViewport({ width: 1400, height: 900 })
    await tab.setContent(html)
    await tab.screenshot({ path: out as `${string}.png`, fullPage: true })
  } finally {
    await browser.close()
  }
  process.stderr.write(`written ${out}\n`)
}

/** One tick's requests: their number follows a slow wave, so the rates move. */
async function traffic (url: string, tick: number): Promise<void> {
  const signedIn = { authorization: `Bearer ${KEY}` }
  const agent = { ...signedIn, 'x-audience': 'agent' }
  const mcp = { ...signedIn, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  const call = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'listLedgerEntries', arguments: { offset: id % 1000, limit: 50 } } })
  const wave = 1 + Math.sin(tick / 3)
  const times = (n: number) => Math.round(n * wave) + 1
  const requests: Array<[string, RequestInit]> = [
    ...repeat(times(6), (i) => [`/books?page=${1 + (i % 20)}&limit=10`, { headers: agent }]),
    ...repeat(times(2), () => ['/books', { headers: signedIn }]),
    ...repeat(times(3), (i) => [`/books/${1 + i}`, { headers: signedIn }]),
    ...repeat(times(3), (i) => [`/ledger?offset=${i * 50}&limit=50`, { headers: { 'x-audience': 'agent' } }]),
    ...repeat(tick % 3 === 0 ? 2 : 0, () => ['/ledger?limit=1000', { headers: { 'x-audience': 'agent' } }]),
    ...repeat(times(2), (i) => ['/mcp', { method: 'POST', headers: mcp, body: call(tick * 100 + i) }]),
    ...repeat(times(2), (i) => [`/products?limit=${5 + i}`, { headers: { 'x-audience': 'agent' } }]),
    ...repeat(tick % 4 === 1 ? 3 : 1, () => ['/books', { headers: { authorization: 'Bearer not-a-key-of-this-gateway' } }]),
    ...repeat(tick % 5 === 2 ? 4 : 1, () => ['/books/999999', { headers: signedIn }])
  ]
  await Promise.all(requests.map(async ([path, init]) => { await (await fetch(url + path, init)).arrayBuffer() }))
}

function repeat (n: number, make: (i: number) => [string, RequestInit]): Array<[string, RequestInit]> {
  return Array.from({ length: n }, (_, i) => make(i))
}

async function scrape (url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${SCRAPER}` } })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`GET /metrics: ${response.status} ${text.slice(0, 200)}`)
  return text
}

await main()
