// How long and how hard the suite runs, from the environment, so a quick look and a careful
// measurement are the same command.

export interface BenchSettings {
  /** Seconds each measured autocannon slice lasts (BENCH_SECONDS, default 3). */
  readonly seconds: number
  /** Seconds of unmeasured load each server gets once started (BENCH_WARMUP_SECONDS, default 2). */
  readonly warmupSeconds: number
  /** Rounds of every comparison; figures are medians (BENCH_ROUNDS, default 4; the 1M-row stream runs at most 2). */
  readonly rounds: number
  /** Concurrent connections autocannon keeps open (BENCH_CONNECTIONS, default 10). */
  readonly connections: number
  /** Rows of the large table (BENCH_LARGE_ROWS, default 1,000,000). */
  readonly largeRows: number
  /** Scenarios to run, by id (BENCH_ONLY, e.g. `end-to-end,growth`; default all). */
  readonly only: ReadonlySet<string>
  /** Where the JSON summary goes (BENCH_OUT, default bench-results/summary.json). */
  readonly out: string
}

export const SCENARIOS = ['end-to-end', 'mcp', 'projection', 'stream', 'growth', 'upstream', 'limit', 'tracing', 'hooks', 'walk', 'cost'] as const

export function readSettings (env: Readonly<Record<string, string | undefined>>): BenchSettings {
  const only = (env.BENCH_ONLY ?? '').split(',').map((id) => id.trim()).filter((id) => id !== '')
  const unknown = only.filter((id) => !(SCENARIOS as readonly string[]).includes(id))
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}.`)
  return {
    seconds: positive(env, 'BENCH_SECONDS', 3),
    warmupSeconds: positive(env, 'BENCH_WARMUP_SECONDS', 2),
    rounds: positive(env, 'BENCH_ROUNDS', 4),
    connections: positive(env, 'BENCH_CONNECTIONS', 10),
    largeRows: positive(env, 'BENCH_LARGE_ROWS', 1_000_000),
    only: new Set(only.length === 0 ? SCENARIOS : only),
    out: env.BENCH_OUT ?? 'bench-results/summary.json'
  }
}

function positive (env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const text = env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number; got ${JSON.stringify(text)}.`)
  return value
}
