// Compared subjects are measured in alternation: every server of a comparison is started (each in
// its own process) and warmed up, then short slices run one subject at a time, the order rotating
// every round. Only one server is under load at any moment; the others wait idle. On a shared
// machine whose load drifts, neighbouring slices see nearly the same machine, so the ratio of two
// subjects in one round is far steadier than their absolute figures.
import type { ServerProcess } from './child.js'
import { measureLoad, warmLoad, type LoadResult } from './load.js'
import type { BenchSettings } from './settings.js'

export interface LoadSubject {
  readonly id: string
  readonly label: string
  readonly server: ServerProcess
  readonly paths: readonly string[]
  readonly headers: Record<string, string>
}

/** Seconds of unmeasured load before each slice, so a server that sat idle is not measured cold. */
const SETTLE_SECONDS = 0.5

export async function alternate (subjects: readonly LoadSubject[], settings: BenchSettings, log: (line: string) => void): Promise<Record<string, LoadResult[]>> {
  const runs: Record<string, LoadResult[]> = Object.fromEntries(subjects.map((subject) => [subject.id, []]))
  for (const subject of subjects) await warmLoad(subject.server.url, { ...settings, ...subject }, settings.warmupSeconds)
  for (let round = 0; round < settings.rounds; round++) {
    log(`  round ${round + 1}/${settings.rounds}: ${subjects.length} subjects, ${settings.seconds} s each`)
    for (const subject of rotate(subjects, round)) {
      await warmLoad(subject.server.url, { ...settings, ...subject }, SETTLE_SECONDS)
      runs[subject.id].push(await measureLoad(subject.server.url, subject.server.pid, { ...settings, ...subject }))
    }
  }
  return runs
}

export function rotate<T> (items: readonly T[], by: number): T[] {
  const shift = by % items.length
  return [...items.slice(shift), ...items.slice(0, shift)]
}
