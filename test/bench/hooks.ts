// Scenario 9: what each hook costs a request. The gateway as shipped, answering every 50-entry
// ledger agent page from scratch (RESPONSE_CACHE_MB=0), with tracing off, no CORS origin and no
// If-* header, each of its hooks timed inside its process (servers/hook-times.ts). Per hook: its
// microseconds per request, median over rounds (each a fresh process), against a hook that does
// nothing timed the same way. Timing adds its own cost, so the process's CPU per request here is a
// little above an untimed one's; the hooks' figures are read against the floor, not against it. The
// conditional hook runs once the answer is written and hashed: it is read against a hook doing
// nothing at that point (servers/hook-times.ts), round by round, each round's two figures taken in
// the same process at the same time, so that a round on a slow spell of the machine moves both.
import { startServer } from './child.js'
import { AGENT, body } from './http.js'
import { measureLoad, warmLoad } from './load.js'
import { median, round, type Row, type Verdict } from './report.js'
import type { BenchSettings } from './settings.js'
import { ANSWER_FLOOR_HOOK, FLOOR_HOOK, HOOK_TIMES_URL, type HookTime } from './servers/hook-times.js'
import { FLOW_ONLY } from './servers/options.js'

const PATHS = [0, 300, 600, 900, 1150].map((offset) => `/ledger?offset=${offset}&limit=50`)
const SCENARIO = '9 hooks, a 50-entry ledger agent page from scratch'

/** Hooks that have nothing to do here: tracing's (off), CORS's (no origin). None of them may run. */
const IDLE = /^\w+ (startSpan|endSpan|handleCors)\b/
/** The conditional-request hook, with no If-* header to answer: it may cost no more than this above the floor. */
const CONDITIONAL = /^onSend answerConditional\b/
const CONDITIONAL_MARGIN_US = 0.5

type Times = Record<string, HookTime>

export async function hooksScenario (databasePath: string, key: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  log('hooks: each hook of the gateway timed in its process, ledger agent pages from scratch')
  const rounds: Array<{ cpuUs: number, perHook: Record<string, { us: number, calls: number }> }> = []
  for (let i = 0; i < settings.rounds; i++) {
    const server = await startServer('gateway', databasePath, key, { ...FLOW_ONLY, BENCH_HOOK_TIMES: '1' })
    try {
      const options = { ...settings, paths: PATHS, headers: AGENT }
      await warmLoad(server.url, options, settings.warmupSeconds)
      const before = await times(server.url)
      const result = await measureLoad(server.url, server.pid, options)
      const after = await times(server.url)
      // The report's own request is counted once, in `after`; at thousands of requests, it is noise.
      const perHook = Object.fromEntries(Object.entries(after).map(([name, total]) => {
        const earlier = before[name] ?? { ns: 0, calls: 0 }
        return [name, { us: (total.ns - earlier.ns) / 1000 / result.requests, calls: (total.calls - earlier.calls) / result.requests }]
      }))
      rounds.push({ cpuUs: result.cpuUs, perHook })
      log(`  round ${i + 1}/${settings.rounds}: ${Object.keys(perHook).length} hooks`)
    } finally {
      await server.stop()
    }
  }
  const names = [...new Set(rounds.flatMap((each) => Object.keys(each.perHook)))]
  const us = (name: string) => median(rounds.map((each) => each.perHook[name]?.us ?? 0))
  const spread = (name: string) => rounds.map((each) => round(each.perHook[name]?.us ?? 0, 2)).join(', ')
  const cpuUs = median(rounds.map((each) => each.cpuUs))
  const floor = us(FLOOR_HOOK)
  const ordered = names.sort((a, b) => us(b) - us(a))
  const rows: Row[] = ordered.map((name) => ({
    scenario: SCENARIO,
    subject: name,
    figures: { 'us/req': round(us(name), 2), 'above floor': round(us(name) - floor, 2), 'calls/req': round(median(rounds.map((each) => each.perHook[name]?.calls ?? 0)), 2), rounds: spread(name) }
  }))
  const floors = new Set([FLOOR_HOOK, ANSWER_FLOOR_HOOK])
  const hooksUs = ordered.filter((name) => !floors.has(name)).reduce((sum, name) => sum + us(name), 0)
  rows.push({ scenario: SCENARIO, subject: 'every hook together, and the timed process\'s CPU per request', figures: { 'us/req': round(hooksUs, 1), 'CPU us/req': round(cpuUs, 1) } })
  const idle = ordered.filter((name) => IDLE.test(name))
  const conditional = ordered.filter((name) => CONDITIONAL.test(name))
  // Each round's conditional hook less that round's floor once answered; the median of those.
  const answerFloor = us(ANSWER_FLOOR_HOOK)
  const above = rounds.map((each) => conditional.reduce((sum, name) => sum + (each.perHook[name]?.us ?? 0) - (each.perHook[ANSWER_FLOOR_HOOK]?.us ?? 0), 0))
  const conditionalAbove = median(above)
  return {
    rows,
    verdicts: [
      {
        target: 'tracing off and no CORS origin: none of their hooks runs',
        measured: idle.length === 0 ? `none among the ${ordered.length - floors.size} hooks that ran` : `ran: ${idle.join(', ')}`,
        holds: idle.length === 0
      },
      {
        target: `no If-* header: the conditional-request hook costs < ${CONDITIONAL_MARGIN_US} us above a hook doing nothing once answered`,
        measured: conditional.length === 0 || answerFloor === 0
          ? `${conditional.length === 0 ? 'the hook' : 'the floor once answered'} never ran`
          : `${round(conditionalAbove, 2)} us above it, the median of the rounds' ${above.map((each) => round(each, 2)).join(', ')} (the hook ${conditional.map(spread).join('; ')}; the floor once answered ${spread(ANSWER_FLOOR_HOOK)}; the floor before the handler ${round(floor, 2)} us)`,
        holds: conditional.length > 0 && answerFloor > 0 && conditionalAbove < CONDITIONAL_MARGIN_US
      },
      {
        target: 'every hook of a request together, against its CPU, no target',
        measured: `${round(hooksUs, 1)} us of ${round(cpuUs, 1)} us (${round(100 * hooksUs / cpuUs, 1)}%), each hook's floor included`,
        holds: null
      }
    ],
    summary: { paths: PATHS, floorUs: floor, answerFloorUs: answerFloor, conditionalAboveUs: above, cpuUs, hooks: Object.fromEntries(ordered.map((name) => [name, { us: us(name), rounds: rounds.map((each) => each.perHook[name]) }])) }
  }
}

async function times (url: string): Promise<Times> {
  return JSON.parse(await body(url + HOOK_TIMES_URL, {})) as Times
}
