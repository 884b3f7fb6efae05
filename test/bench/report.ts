// Medians across rounds, the printed table, and target verdicts: the numbers a reader checks.

export interface Row {
  readonly scenario: string
  readonly subject: string
  readonly figures: Readonly<Record<string, number | string>>
}

export interface Verdict {
  readonly target: string
  readonly measured: string
  /** null: measured and reported, no target to hold. */
  readonly holds: boolean | null
}

export function median (values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** The median of each numeric field across rounds. */
export function medianOf<T extends Record<string, number>> (rounds: readonly T[]): T {
  const out: Record<string, number> = {}
  for (const key of Object.keys(rounds[0])) out[key] = median(rounds.map((round) => round[key]))
  return out as T
}

export function round (value: number, digits = 2): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

/** Plain-text tables, one per scenario, columns as wide as their widest cell. */
export function tables (rows: readonly Row[]): string {
  const scenarios = [...new Set(rows.map((row) => row.scenario))]
  return scenarios.map((scenario) => table(scenario, rows.filter((row) => row.scenario === scenario))).join('\n\n')
}

function table (scenario: string, rows: readonly Row[]): string {
  const columns = [scenario, ...new Set(rows.flatMap((row) => Object.keys(row.figures)))]
  const cells = rows.map((row) => columns.map((column, i) => {
    if (i === 0) return row.subject
    const value = row.figures[column]
    return value === undefined ? '' : typeof value === 'number' ? format(value) : value
  }))
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((line) => line[i].length)))
  const line = (values: readonly string[]) => values.map((value, i) => i === 0 ? value.padEnd(widths[i]) : value.padStart(widths[i])).join('  ')
  return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n')
}

export function verdicts (list: readonly Verdict[]): string {
  return list.map((verdict) => `${verdict.holds === null ? 'INFO  ' : verdict.holds ? 'HOLDS ' : 'MISSED'}  ${verdict.target}: ${verdict.measured}`).join('\n')
}

function format (value: number): string {
  if (!Number.isFinite(value)) return String(value)
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US')
  return String(round(value, Math.abs(value) >= 10 ? 1 : 2))
}
