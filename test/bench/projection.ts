// Scenario 2's side in the suite: runs the worker in a fresh process and reads its verdicts.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import type { ProjectionResults } from './projection-worker.js'
import { median, round, type Row, type Verdict } from './report.js'
import type { BenchSettings } from './settings.js'
import { ZONED_TIME_ZONE, type ZonedRound } from './zoned.js'

/** The records of the target are the book and the invoice as served; this one isolates the machinery. */
const UNTIMED = 'book-untimed'
/** CPU microseconds a ledger entry with a zoned timestamp may cost to project. */
const ZONED_TARGET_US = 3

export async function projection (settings: BenchSettings): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const rounds = Math.max(5, settings.rounds)
  const child = fork(join(import.meta.dirname, 'projection-worker.js'), [String(rounds)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = once(child, 'exit')
  const { subjects: results, zoned } = await Promise.race([
    once(child, 'message').then(([message]) => message as ProjectionResults),
    exited.then(([code]) => { throw new Error(`The projection worker exited with ${String(code)}.`) })
  ])
  await exited
  const zonedRows = zonedReport(zoned)
  const ratios = Object.fromEntries(Object.entries(results).map(([id, result]) => [id, median(result.rounds.map((r) => r.generic / r.hand))]))
  return {
    rows: [...Object.entries(results).map(([id, result]) => ({
      scenario: '2 projection alone',
      subject: result.label,
      figures: {
        'generic rows/s': median(result.rounds.map((r) => r.generic)),
        'hand rows/s': median(result.rounds.map((r) => r.hand)),
        'x hand': round(ratios[id])
      }
    })), ...zonedRows.rows],
    verdicts: [...Object.entries(results).map(([id, result]) => ({
      target: id === UNTIMED
        ? `generic projection against hand-written, no target: ${result.label}`
        : `generic projection >= 0.5 x hand-written: ${result.label}`,
      measured: `${round(ratios[id])} x`,
      holds: id === UNTIMED ? null : ratios[id] >= 0.5
    })), zonedRows.verdict],
    summary: { rows: 10_000, rounds, subjects: Object.fromEntries(Object.entries(results).map(([id, result]) => [id, { ...result, ratio: ratios[id] }])), zoned: { timeZone: ZONED_TIME_ZONE, rounds: zoned } }
  }
}

/** Medians, and the spread over rounds: the machine is shared, and one round can be an outlier. */
function zonedReport (rounds: readonly ZonedRound[]): { rows: Row[], verdict: Verdict } {
  const figure = (key: keyof ZonedRound) => {
    const values = rounds.map((r) => r[key])
    return { median: round(median(values), 3), low: round(Math.min(...values), 3), high: round(Math.max(...values), 3) }
  }
  const shipped = figure('shipped')
  const luxon = figure('luxon')
  const spread = (f: { low: number, high: number }) => `${f.low} to ${f.high}`
  return {
    rows: [
      { scenario: '2 projection alone, zoned timestamps', subject: `ledger, 50-entry pages, posted_at in ${ZONED_TIME_ZONE}`, figures: { 'CPU us/row': shipped.median, rounds: spread(shipped), 'wall us/row': figure('shippedWall').median, 'first sight CPU us/row': figure('firstSight').median } },
      { scenario: '2 projection alone, zoned timestamps', subject: 'the same, luxon reading and formatting every value', figures: { 'CPU us/row': luxon.median, rounds: spread(luxon), 'x shipped': round(luxon.median / shipped.median, 1) } }
    ],
    verdict: {
      target: `per-row projection with zoned timestamps <= ${ZONED_TARGET_US} us: ledger, ${ZONED_TIME_ZONE}`,
      measured: `${shipped.median} us of CPU (rounds ${spread(shipped)}); luxon per value ${luxon.median} us`,
      holds: shipped.median <= ZONED_TARGET_US
    }
  }
}
