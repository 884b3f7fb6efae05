// Each panel of docs/grafana/audience-gateway.json, its PromQL computed from a run of scrapes: a
// counter's rate is its increase between consecutive scrapes over the seconds between them (summed
// by the query's labels), a gauge is read as scraped, a quantile interpolates linearly inside the
// bucket the rank falls in, as histogram_quantile does. Only the queries the dashboard holds are
// known: a panel whose query is not one of them stops the picture rather than be drawn wrong.
import { parseExposition, type Sample } from '../helpers/prometheus.js'

export interface Panel {
  readonly id: number
  readonly title: string
  readonly fieldConfig?: { defaults?: { unit?: string } }
  readonly targets: ReadonlyArray<{ expr: string, legendFormat: string }>
}

export interface Series {
  readonly name: string
  /** Seconds since the first scrape, and the value (NaN where there is nothing to compute). */
  readonly points: ReadonlyArray<readonly [number, number]>
}

interface Scraped { readonly at: number, readonly text: string }

type Parsed = ReadonlyArray<{ at: number, samples: readonly Sample[] }>

export function panelSeries (panel: Panel, scrapes: readonly Scraped[]): Series[] {
  const parsed: Parsed = scrapes.map((scrape) => ({ at: scrape.at, samples: parseExposition(scrape.text).samples }))
  return panel.targets.flatMap((target) => query(target.expr, target.legendFormat, parsed))
}

const RATE_BY = /^sum by \(([a-z_, ]+)\) \(rate\((\w+)\[\$__rate_interval\]\)\)$/
const QUANTILE = /^histogram_quantile\(([\d.]+), sum by \(le, ([a-z_, ]+)\) \(rate\((\w+)_bucket\[\$__rate_interval\]\)\)\)$/
const SUM_GAUGE = /^sum\((\w+)\)$/
const RATE = /^rate\((\w+)\[\$__rate_interval\]\)$/
const GAUGE = /^(\w+)$/
const HIT_RATIO = /^sum\(rate\((\w+)\{outcome="hit"\}\[\$__rate_interval\]\)\) \/ sum\(rate\((\w+)\[\$__rate_interval\]\)\)$/

function query (expr: string, legend: string, scrapes: Parsed): Series[] {
  let match: RegExpExecArray | null
  if ((match = RATE_BY.exec(expr)) !== null) return rates(scrapes, match[2], labelsOf(match[1]), legend)
  if ((match = QUANTILE.exec(expr)) !== null) return quantiles(scrapes, Number(match[1]), match[3], labelsOf(match[2]), legend)
  if ((match = SUM_GAUGE.exec(expr)) !== null) return [gauges(scrapes, match[1], [], legend)[0] ?? { name: legend, points: [] }]
  // The process's own metrics carry no labels here (one process scraped): {{instance}} names nothing.
  if ((match = RATE.exec(expr)) !== null) return rates(scrapes, match[1], [], legend.replace(' {{instance}}', ''))
  if ((match = GAUGE.exec(expr)) !== null) return gauges(scrapes, match[1], [], legend.replace(' {{instance}}', ''))
  if ((match = HIT_RATIO.exec(expr)) !== null && match[1] === match[2]) {
    const hits = rates(scrapes, match[1], [], legend, { outcome: 'hit' })[0]
    const all = rates(scrapes, match[1], [], legend)[0]
    return all === undefined ? [] : [{ name: legend, points: all.points.map(([t, total], i) => [t, total === 0 ? Number.NaN : (hits?.points[i][1] ?? 0) / total]) }]
  }
  throw new Error(`A query the picture does not know: ${expr}`)
}

function labelsOf (list: string): string[] {
  return list.split(',').map((name) => name.trim())
}

function name (legend: string, labels: Readonly<Record<string, string>>): string {
  return legend.replace(/\{\{(\w+)\}\}/g, (_, label: string) => labels[label] ?? '')
}

/** Sums of `metric` by `by`, per scrape: key (the labels' values) to value, and the labels. */
function grouped (samples: readonly Sample[], metric: string, by: readonly string[], filter: Readonly<Record<string, string>> = {}): Map<string, { labels: Record<string, string>, value: number }> {
  const groups = new Map<string, { labels: Record<string, string>, value: number }>()
  for (const sample of samples) {
    if (sample.name !== metric || !Object.entries(filter).every(([key, value]) => sample.labels[key] === value)) continue
    const labels = Object.fromEntries(by.map((label) => [label, sample.labels[label] ?? '']))
    const key = JSON.stringify(labels)
    const group = groups.get(key) ?? { labels, value: 0 }
    group.value += sample.value
    groups.set(key, group)
  }
  return groups
}

function rates (scrapes: Parsed, metric: string, by: readonly string[], legend: string, filter: Readonly<Record<string, string>> = {}): Series[] {
  return rateGroups(scrapes, metric, by, filter).map(({ labels, points }) => ({ name: name(legend, labels), points }))
}

/** Per group of `by`'s values, the rate between each pair of consecutive scrapes. */
function rateGroups (scrapes: Parsed, metric: string, by: readonly string[], filter: Readonly<Record<string, string>> = {}): Array<{ labels: Record<string, string>, points: Array<readonly [number, number]> }> {
  const perScrape = scrapes.map((scrape) => grouped(scrape.samples, metric, by, filter))
  const keys = new Map(perScrape.flatMap((groups) => [...groups.entries()].map(([key, group]) => [key, group.labels] as const)))
  return [...keys].map(([key, labels]) => ({
    labels,
    points: scrapes.slice(1).map((scrape, i) => [scrape.at - scrapes[0].at, ((perScrape[i + 1].get(key)?.value ?? 0) - (perScrape[i].get(key)?.value ?? 0)) / (scrape.at - scrapes[i].at)] as const)
  }))
}

function gauges (scrapes: Parsed, metric: string, by: readonly string[], legend: string): Series[] {
  const perScrape = scrapes.map((scrape) => grouped(scrape.samples, metric, by))
  const keys = new Map(perScrape.flatMap((groups) => [...groups.entries()].map(([key, group]) => [key, group.labels] as const)))
  return [...keys].map(([key, labels]) => ({
    name: name(legend, labels),
    points: scrapes.map((scrape, i) => [scrape.at - scrapes[0].at, perScrape[i].get(key)?.value ?? Number.NaN] as const)
  }))
}

/** histogram_quantile(q, sum by (le, ...) (rate(metric_bucket))): per interval, per group. */
function quantiles (scrapes: Parsed, q: number, metric: string, by: readonly string[], legend: string): Series[] {
  const groups = new Map<string, { labels: Record<string, string>, bounds: Array<{ le: number, points: ReadonlyArray<readonly [number, number]> }> }>()
  for (const { labels, points } of rateGroups(scrapes, `${metric}_bucket`, [...by, 'le'])) {
    const key = JSON.stringify(by.map((label) => labels[label]))
    const group = groups.get(key) ?? { labels, bounds: [] }
    group.bounds.push({ le: labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.le), points })
    groups.set(key, group)
  }
  return [...groups.values()].map(({ labels, bounds }) => {
    bounds.sort((a, b) => a.le - b.le)
    return {
      name: name(legend, labels),
      points: bounds[0].points.map(([t], i) => [t, quantile(q, bounds.map((bound) => ({ le: bound.le, count: bound.points[i][1] })))] as const)
    }
  })
}

/** Prometheus's interpolation over cumulative bucket rates; NaN when nothing was observed. */
export function quantile (q: number, buckets: ReadonlyArray<{ le: number, count: number }>): number {
  const total = buckets[buckets.length - 1]?.count ?? 0
  if (!(total > 0)) return Number.NaN
  const rank = q * total
  let lower = 0
  let below = 0
  for (const bucket of buckets) {
    if (bucket.count >= rank) {
      if (bucket.le === Number.POSITIVE_INFINITY) return lower
      return lower + (bucket.le - lower) * ((rank - below) / Math.max(bucket.count - below, Number.MIN_VALUE))
    }
    lower = bucket.le
    below = bucket.count
  }
  return lower
}
