// Scenario 2's zoned timestamps, run in the projection worker: microseconds per ledger entry
// projected (50-entry pages, posted_at in a zone with daylight saving) through the projection as a
// mount builds it, against the same projection with the renderer it replaced, luxon reading and
// formatting every value. CPU time, since the machine is shared; wall time for the shipped one too.
import { defineFormatter, DEFAULT_TIMESTAMP_FORMAT, Marking } from '../../src/declare/index.js'
import { buildProjection, projectPayload, type Projection } from '../../src/projection/index.js'
import { ledgerEntry } from '../../demo/catalogue.js'
import { LedgerEntry } from '../../routes/ledger/entry.js'
import { luxonRenderer } from '../helpers/luxon-renderer.js'

export const ZONED_TIME_ZONE = 'Europe/Amsterdam'
/** Six hours apart, as the demo ledger posts them: 2,500 days from January 2026. */
const ENTRIES = 10_000
const PAGE = 50
/** Each timed run lasts about this long, so timer resolution and GC pauses average out. */
const RUN_MS = 300

export interface ZonedRound {
  /** CPU microseconds per entry, the projection as shipped, its zone's offsets already learned. */
  readonly shipped: number
  readonly shippedWall: number
  /** The same, the first time each page is projected (a fresh projection: every day's offset learned on the way). */
  readonly firstSight: number
  /** CPU microseconds per entry with the luxon-per-value renderer. */
  readonly luxon: number
}

export function zonedRounds (rounds: number): ZonedRound[] {
  const pages = Array.from({ length: ENTRIES / PAGE }, (_, page) => Array.from({ length: PAGE }, (_, i) => ledgerEntry(page * PAGE + i + 1)))
  const shipped = shippedProjection()
  const luxon = buildProjection(LedgerEntry.schema, {
    name: 'bench',
    timeZone: ZONED_TIME_ZONE,
    overrides: { posted_at: Marking.formatted(defineFormatter({ render: luxonRenderer(DEFAULT_TIMESTAMP_FORMAT, ZONED_TIME_ZONE), produces: 'string' })) }
  })
  if (JSON.stringify(projectAll(pages, shipped)) !== JSON.stringify(projectAll(pages, luxon))) {
    throw new Error('Zoned ledger pages: the shipped renderer and the luxon-per-value one disagree.')
  }
  const shippedPasses = passesFor(pages, shipped)
  const luxonPasses = passesFor(pages, luxon)
  const list: ZonedRound[] = []
  for (let round = 0; round < rounds; round++) {
    const fresh = shippedProjection()
    const firstSight = timed(pages, fresh, 1).cpu
    // Alternating which goes first, as the other subjects do.
    const a = round % 2 === 0 ? timed(pages, shipped, shippedPasses) : timed(pages, luxon, luxonPasses)
    const b = round % 2 === 0 ? timed(pages, luxon, luxonPasses) : timed(pages, shipped, shippedPasses)
    const [mine, theirs] = round % 2 === 0 ? [a, b] : [b, a]
    list.push({ shipped: mine.cpu, shippedWall: mine.wall, firstSight, luxon: theirs.cpu })
  }
  return list
}

function shippedProjection (): Projection {
  return buildProjection(LedgerEntry.schema, { name: 'bench', timeZone: ZONED_TIME_ZONE })
}

let sink: unknown

function projectAll (pages: readonly unknown[][], projection: Projection): unknown[] {
  return pages.map((page) => projectPayload(page, projection))
}

/** Passes over every page lasting about RUN_MS, after a warm-up pass. */
function passesFor (pages: readonly unknown[][], projection: Projection): number {
  projectAll(pages, projection)
  const started = performance.now()
  projectAll(pages, projection)
  return Math.max(1, Math.ceil(RUN_MS / Math.max(performance.now() - started, 0.01)))
}

/** Microseconds per entry over `passes` passes, of CPU (user and system) and of wall time. */
function timed (pages: readonly unknown[][], projection: Projection, passes: number): { cpu: number, wall: number } {
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let pass = 0; pass < passes; pass++) {
    for (const page of pages) sink = projectPayload(page, projection)
  }
  const wall = performance.now() - started
  const used = process.cpuUsage(cpu)
  if (sink === undefined) throw new Error('nothing projected')
  const entries = ENTRIES * passes
  return { cpu: (used.user + used.system) / entries, wall: (wall * 1000) / entries }
}
