// Compared subjects are measured in alternation, in rounds. Every round starts each server afresh
// (each in its own process) and warms it up, then short slices run one subject at a time, in an
// order rotating every round, and the servers stop. Only one server is under load at any moment;
// the others wait idle. On a shared machine whose load drifts, neighbouring slices see nearly the
// same machine, so the ratio of two subjects in one round is far steadier than their absolute
// figures; and fresh processes every round keep one process's luck (where its heap and code
// landed can make it a tenth faster or slower for its whole life) out of every other round.
import type { ServerProcess } from './child.js'
import { measureLoad, warmLoad, type LoadResult } from './load.js'
import { median, medianOf } from './report.js'
import type { BenchSettings } from './settings.js'

export interface LoadSubject {
  readonly id: string
  readonly label: string
  readonly server: ServerProcess
  readonly paths: readonly string[]
  /** One body per path, for POSTs (see load.ts). */
  readonly bodies?: readonly string[]
  readonly headers: Record<string, string>
  /** The status every answer must have, when not any 2xx (see load.ts). */
  readonly status?: number
}

/** Seconds of unmeasured load before each slice, so a server that sat idle is not measured cold. */
const SETTLE_SECONDS = 0.5

/** A subject, and which of the round's servers it loads. */
export interface RoundSubject extends Omit<LoadSubject, 'server'> {
  readonly server: string
}

export interface RoundOptions<Subject extends RoundSubject> {
  /** Starts one of the round's servers. */
  readonly start: (server: Subject['server']) => Promise<ServerProcess>
  /** Checked once, in the first round, before anything is measured (bodies, say). */
  readonly check?: (subject: Subject, server: ServerProcess) => Promise<void>
}

/** `settings.rounds` rounds of one slice per subject; each subject's results in round order. */
export async function measureInRounds<Subject extends RoundSubject> (
  subjects: readonly Subject[],
  options: RoundOptions<Subject>,
  settings: BenchSettings,
  log: (line: string) => void
): Promise<Record<string, LoadResult[]>> {
  const runs: Record<string, LoadResult[]> = Object.fromEntries(subjects.map((subject) => [subject.id, []]))
  for (let round = 0; round < settings.rounds; round++) {
    const servers = new Map<Subject['server'], ServerProcess>()
    try {
      for (const subject of subjects) {
        let server = servers.get(subject.server)
        if (server === undefined) {
          server = await options.start(subject.server)
          servers.set(subject.server, server)
        }
        if (round === 0) await options.check?.(subject, server)
      }
      log(`  round ${round + 1}/${settings.rounds}: ${subjects.length} subjects, ${settings.seconds} s each`)
      const loaded = subjects.map((subject) => ({ ...subject, server: servers.get(subject.server)! }))
      for (const subject of loaded) await warmLoad(subject.server.url, { ...settings, ...subject }, settings.warmupSeconds)
      for (const subject of rotate(loaded, round)) {
        await warmLoad(subject.server.url, { ...settings, ...subject }, SETTLE_SECONDS)
        runs[subject.id].push(await measureLoad(subject.server.url, subject.server.pid, { ...settings, ...subject }))
      }
    } finally {
      for (const server of servers.values()) await server.stop()
    }
  }
  return runs
}

export function rotate<T> (items: readonly T[], by: number): T[] {
  const shift = by % items.length
  return [...items.slice(shift), ...items.slice(0, shift)]
}

/** Each subject's medians across its rounds: req/s, latency percentiles and CPU per request. */
export function loadMedians (runs: Readonly<Record<string, readonly LoadResult[]>>): Record<string, Omit<LoadResult, 'requests'>> {
  return Object.fromEntries(Object.entries(runs).map(([id, results]) => [id, medianOf(results.map(({ rps, p50, p99, cpuUs }) => ({ rps, p50, p99, cpuUs })))]))
}

/** How one subject's medians are printed. */
export function loadFigures (medians: Omit<LoadResult, 'requests'>): Record<string, number> {
  return { 'req/s': medians.rps, 'p50 ms': medians.p50, 'p99 ms': medians.p99, 'CPU us/req': medians.cpuUs }
}

/**
 * `a`'s throughput over `b`'s, round by round (the two measured seconds apart), then the median:
 * as measured (req/s), and from CPU time per request (`b`'s over `a`'s).
 */
export function throughputRatio (runs: Readonly<Record<string, readonly LoadResult[]>>, a: string, b: string): { rps: number, cpu: number } {
  return {
    rps: median(runs[a].map((result, i) => result.rps / runs[b][i].rps)),
    cpu: median(runs[a].map((result, i) => runs[b][i].cpuUs / result.cpuUs))
  }
}
