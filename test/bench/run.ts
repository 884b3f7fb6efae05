// `npm run bench`: the scenarios (the four of issue 6, MCP against HTTP, upstream sources, the limit, tracing off and on, each hook's cost, agents walking a list, and the cost per row), each server in its own process over loopback,
// a table on stdout, a JSON summary (bench-results/summary.json) and its ratios as an SVG chart beside it
// (bench-results/ratios.svg). Not part of `npm test`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pinLoadGenerator, pinning } from './cpus.js'
import { costScenario } from './cost.js'
import { endToEnd } from './end-to-end.js'
import { growth } from './growth.js'
import { hooksScenario } from './hooks.js'
import { KEY } from './http.js'
import { limitScenario } from './limit.js'
import { mcpScenario } from './mcp.js'
import { projection } from './projection.js'
import { ratioChart } from './chart.js'
import { tables, verdicts, type Row, type Verdict } from './report.js'
import { readSettings } from './settings.js'
import { benchTables } from './stores.js'
import { stream } from './stream.js'
import { tracingScenario } from './tracing.js'
import { upstreamScenario } from './upstream.js'
import { walkScenario } from './walk.js'

const SMALL_ROWS = 1_000
const MEDIUM_ROWS = 10_000

async function main (): Promise<void> {
  const settings = readSettings(process.env)
  const started = Date.now()
  const log = (line: string) => { process.stderr.write(`[${Math.round((Date.now() - started) / 1000)}s] ${line}\n`) }
  pinLoadGenerator()
  log(`processes: ${pinning()}`)
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'))
  const rows: Row[] = []
  const checks: Verdict[] = []
  const summary: Record<string, unknown> = {}
  const loadBefore = loadavg()
  // BENCH_STORE=postgres runs the same scenarios on PostgreSQL (see stores.ts).
  const stored = benchTables(process.env, dir)
  try {
    const database = async (count: number) => {
      log(`seeding ${count.toLocaleString('en-US')} books (${stored.store})`)
      return await stored.create(count)
    }
    const wants = (id: string) => settings.only.has(id)
    const medium = wants('end-to-end') || wants('mcp') || wants('limit') || wants('tracing') || wants('hooks') || wants('walk') || wants('cost') ? await database(MEDIUM_ROWS) : undefined
    const small = wants('growth') ? await database(SMALL_ROWS) : undefined
    const large = wants('growth') || wants('stream') ? await database(settings.largeRows) : undefined
    const add = (id: string, result: { rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }) => {
      rows.push(...result.rows.map((row) => stored.store === 'sqlite' ? row : { ...row, scenario: `${row.scenario} [${stored.store}]` }))
      checks.push(...result.verdicts)
      summary[id] = result.summary
    }
    if (medium !== undefined && wants('end-to-end')) add('endToEnd', await endToEnd(medium, KEY, settings, log))
    if (medium !== undefined && wants('tracing')) add('tracing', await tracingScenario(medium, KEY, settings, log))
    if (medium !== undefined && wants('hooks')) add('hooks', await hooksScenario(medium, KEY, settings, log))
    if (medium !== undefined && wants('mcp')) add('mcp', await mcpScenario(medium, KEY, settings, log))
    // The speed route reads the SQLite file itself: on PostgreSQL there is no such reference.
    if (medium !== undefined && wants('limit') && stored.store === 'sqlite') add('limit', await limitScenario(medium, KEY, dir, settings, log))
    if (medium !== undefined && wants('cost')) add('cost', await costScenario(medium, KEY, stored.store, settings, log))
    if (medium !== undefined && wants('walk') && stored.store === 'sqlite') add('walk', await walkScenario(medium, KEY, settings, log))
    if (wants('projection')) {
      log('projection alone')
      add('projection', await projection(settings))
    }
    if (large !== undefined && wants('stream')) add('stream', await stream(large, settings.largeRows, KEY, settings, log))
    if (small !== undefined && large !== undefined) add('growth', await growth({ path: small, rows: SMALL_ROWS }, { path: large, rows: settings.largeRows }, KEY, settings, log))
    // Rows from an upstream HTTP API: the store serves only the gateway's own demo tables here.
    if (wants('upstream')) add('upstream', await upstreamScenario(dir, settings, log))
  } finally {
    await stored.drop()
    rmSync(dir, { recursive: true, force: true })
  }
  const loadAfter = loadavg()
  const busy = Math.max(loadBefore[0], loadAfter[0]) > cpus().length
  const warning = busy ? `\nThe machine was busy (load average ${loadBefore[0].toFixed(1)} before, ${loadAfter[0].toFixed(1)} after, on ${cpus().length} CPUs): req/s and rows/s are noisy; CPU us/req and the per-round ratios less so.\n` : ''
  const output = `${tables(rows)}\n\n${verdicts(checks)}\n${warning}`
  process.stdout.write(`\n${output}`)
  mkdirSync(dirname(settings.out), { recursive: true })
  writeFileSync(settings.out, JSON.stringify({
    when: new Date().toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    machine: { node: process.version, cpus: cpus().length, model: cpus()[0]?.model, pinning: pinning(), loadBefore, loadAfter },
    settings: { ...settings, only: [...settings.only], store: stored.store },
    verdicts: checks,
    scenarios: summary
  }, null, 2) + '\n')
  log(`summary written to ${settings.out}`)
  const chart = join(dirname(settings.out), 'ratios.svg')
  writeFileSync(chart, ratioChart(summary, `npm run bench, ${new Date().toISOString().slice(0, 10)}: ratios (Node ${process.version}, ${cpus().length} CPUs)`))
  log(`ratio chart written to ${chart}`)
}

await main()
