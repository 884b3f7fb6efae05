// Scenario 4: how an agent page's cost grows with the table. Page 1 of a small and of a large
// table, through the shipped route (count cache) and through one that counts on every request,
// and a page near the end of the large table, where SQLite's OFFSET walks every row before it.
import { loadFigures, loadMedians, measureInRounds, throughputRatio } from './alternate.js'
import { startServer } from './child.js'
import { AGENT } from './http.js'
import { round, type Row, type Verdict } from './report.js'
import { UNCACHED_URL } from './servers/gateway.js'
import type { BenchSettings } from './settings.js'
import { FLOW_ONLY } from './servers/options.js'

export interface Table {
  readonly path: string
  readonly rows: number
}

interface Subject {
  readonly id: string
  readonly table: 'small' | 'large'
  readonly label: string
  readonly path: string
}

export async function growth (small: Table, large: Table, key: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const deepPage = Math.ceil(large.rows / 50) - 1
  const n = (count: number) => count.toLocaleString('en-US')
  const subjects: Subject[] = [
    { id: 'small-page1', table: 'small', label: `page 1 of ${n(small.rows)}`, path: '/books?page=1&limit=50' },
    { id: 'small-page1-uncached', table: 'small', label: `page 1 of ${n(small.rows)}, COUNT every request`, path: `${UNCACHED_URL}?page=1&limit=50` },
    { id: 'large-page1', table: 'large', label: `page 1 of ${n(large.rows)}`, path: '/books?page=1&limit=50' },
    { id: 'large-page1-uncached', table: 'large', label: `page 1 of ${n(large.rows)}, COUNT every request`, path: `${UNCACHED_URL}?page=1&limit=50` },
    { id: 'large-deep', table: 'large', label: `page ${n(deepPage)} of ${n(large.rows)} (offset ${n((deepPage - 1) * 50)})`, path: `/books?page=${deepPage}&limit=50` }
  ]
  const tables = { small: small.path, large: large.path }
  log(`cost growth: ${subjects.map((subject) => subject.label).join('; ')}`)
  const runs = await measureInRounds(subjects.map((subject) => ({ ...subject, server: subject.table, paths: [subject.path], headers: AGENT })), {
    start: async (table) => await startServer('gateway', tables[table], key, FLOW_ONLY)
  }, settings, log)
  const medians = loadMedians(runs)
  // Cost is time per request at the same concurrency: the inverse of throughput.
  const cost = (a: string, b: string) => throughputRatio(runs, b, a)
  const pageOneCost = cost('large-page1', 'small-page1')
  const pageOneUncachedCost = cost('large-page1-uncached', 'small-page1-uncached')
  const deepCost = cost('large-deep', 'large-page1')
  const pageOne = pageOneCost.rps
  const pageOneUncached = pageOneUncachedCost.rps
  const deep = deepCost.rps
  const cpu = {
    largeToSmallPage1: pageOneCost.cpu,
    largeToSmallPage1Uncached: pageOneUncachedCost.cpu,
    deepToPage1: deepCost.cpu
  }
  const figures = (id: string, extra: Record<string, number> = {}) => ({ ...loadFigures(medians[id]), ...extra })
  return {
    rows: subjects.map((subject) => ({
      scenario: '4 cost growth',
      subject: subject.label,
      figures: figures(subject.id, subject.id === 'large-page1'
        ? { 'cost x small': round(pageOne) }
        : subject.id === 'large-page1-uncached'
          ? { 'cost x small': round(pageOneUncached) }
          : subject.id === 'large-deep' ? { 'cost x page 1': round(deep) } : {})
    })),
    verdicts: [
      {
        target: `agent page 1 of ${n(large.rows)} rows within 2 x page 1 of ${n(small.rows)}`,
        measured: `${round(pageOne)} x (by CPU per request ${round(cpu.largeToSmallPage1)} x; COUNT on every request ${round(pageOneUncached)} x, by CPU ${round(cpu.largeToSmallPage1Uncached)} x)`,
        holds: pageOne <= 2
      },
      {
        target: `deep page (offset ${n((deepPage - 1) * 50)}) of ${n(large.rows)} rows within 2 x page 1 (CPU per request; the books seek from keyset anchors)`,
        measured: `${round(cpu.deepToPage1, 2)} x page 1 by CPU (by req/s ${round(deep, 2)} x), p50 ${round(medians['large-deep'].p50, 1)} ms at ${settings.connections} connections`,
        holds: cpu.deepToPage1 <= 2
      }
    ],
    summary: {
      small: small.rows,
      large: large.rows,
      subjects: Object.fromEntries(subjects.map((s) => [s.id, { label: s.label, path: s.path, median: medians[s.id], rounds: runs[s.id] }])),
      ratios: { largeToSmallPage1: pageOne, largeToSmallPage1Uncached: pageOneUncached, deepToPage1: deep, cpu }
    }
  }
}
