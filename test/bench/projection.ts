// Scenario 2's side in the suite: runs the worker in a fresh process and reads its verdicts.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import type { ProjectionRound } from './projection-worker.js'
import { median, round, type Row, type Verdict } from './report.js'
import type { BenchSettings } from './settings.js'

/** The records of the target are the book and the invoice as served; this one isolates the machinery. */
const UNTIMED = 'book-untimed'

export async function projection (settings: BenchSettings): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const rounds = Math.max(5, settings.rounds)
  const child = fork(join(import.meta.dirname, 'projection-worker.js'), [String(rounds)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = once(child, 'exit')
  const results = await Promise.race([
    once(child, 'message').then(([message]) => message as Record<string, { label: string, rounds: ProjectionRound[] }>),
    exited.then(([code]) => { throw new Error(`The projection worker exited with ${String(code)}.`) })
  ])
  await exited
  const ratios = Object.fromEntries(Object.entries(results).map(([id, result]) => [id, median(result.rounds.map((r) => r.generic / r.hand))]))
  return {
    rows: Object.entries(results).map(([id, result]) => ({
      scenario: '2 projection alone',
      subject: result.label,
      figures: {
        'generic rows/s': median(result.rounds.map((r) => r.generic)),
        'hand rows/s': median(result.rounds.map((r) => r.hand)),
        'x hand': round(ratios[id])
      }
    })),
    verdicts: Object.entries(results).map(([id, result]) => ({
      target: id === UNTIMED
        ? `generic projection against hand-written, no target: ${result.label}`
        : `generic projection >= 0.5 x hand-written: ${result.label}`,
      measured: `${round(ratios[id])} x`,
      holds: id === UNTIMED ? null : ratios[id] >= 0.5
    })),
    summary: { rows: 10_000, rounds, subjects: Object.fromEntries(Object.entries(results).map(([id, result]) => [id, { ...result, ratio: ratios[id] }])) }
  }
}
