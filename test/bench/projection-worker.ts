// Scenario 2, in a process of its own: rows per second through the generic projection (built
// once, as a mount builds it) against the hand-written functions, on the same presented records.
// Outputs are compared as JSON first; each round times both, alternating which goes first. Then
// the zoned ledger pages (zoned.ts).
import { Marking } from '../../src/declare/index.js'
import { buildProjection, projectPayload, type Projection } from '../../src/projection/index.js'
import { Book } from '../../routes/books/book.js'
import { Invoice } from '../../routes/invoices/invoice.js'
import { handBook, handBookUntimed, handInvoice, type PresentedInvoice } from './hand.js'
import { benchBook, type BenchBook } from './seed.js'
import { zonedRounds, type ZonedRound } from './zoned.js'

const ROWS = 10_000
/** Each timed run lasts about this long, so timer resolution and GC pauses average out. */
const RUN_MS = 300

interface Subject {
  readonly id: string
  readonly label: string
  readonly rows: readonly unknown[]
  readonly generic: (rows: readonly unknown[]) => unknown
  readonly hand: (rows: readonly unknown[]) => unknown
}

export interface ProjectionRound {
  readonly generic: number
  readonly hand: number
}

export interface ProjectionResults {
  readonly subjects: Record<string, { label: string, rounds: ProjectionRound[] }>
  readonly zoned: ZonedRound[]
}

function main (): void {
  const rounds = Number(process.argv[2] ?? 5)
  const results: Record<string, { label: string, rounds: ProjectionRound[] }> = {}
  for (const subject of subjects()) {
    if (JSON.stringify(subject.generic(subject.rows)) !== JSON.stringify(subject.hand(subject.rows))) {
      throw new Error(`${subject.label}: the generic projection and the hand-written function disagree.`)
    }
    const iterations = calibrate(subject)
    const list: ProjectionRound[] = []
    for (let round = 0; round < rounds; round++) {
      const first = round % 2 === 0 ? 'generic' : 'hand'
      const a = rowsPerSecond(subject[first], subject.rows, iterations)
      const b = rowsPerSecond(subject[first === 'generic' ? 'hand' : 'generic'], subject.rows, iterations)
      list.push(first === 'generic' ? { generic: a, hand: b } : { generic: b, hand: a })
    }
    results[subject.id] = { label: subject.label, rounds: list }
  }
  const message: ProjectionResults = { subjects: results, zoned: zonedRounds(rounds) }
  process.send!(message)
}

function subjects (): Subject[] {
  const books: BenchBook[] = Array.from({ length: ROWS }, (_, i) => benchBook(i + 1))
  const invoices = Array.from({ length: ROWS }, (_, i) => Invoice.present(benchInvoice(i + 1)) as unknown as PresentedInvoice)
  const project = (projection: Projection) => (rows: readonly unknown[]) => projectPayload(rows, projection)
  return [
    {
      id: 'book',
      label: 'book (choices, formatter, date, hidden field)',
      rows: books,
      generic: project(buildProjection(Book.schema, { name: 'bench', timeZone: 'UTC' })),
      hand: (rows) => (rows as BenchBook[]).map(handBook)
    },
    {
      id: 'book-untimed',
      label: 'book, date served as stored (projection machinery alone)',
      rows: books,
      generic: project(buildProjection(Book.schema, { name: 'bench', timeZone: 'UTC', overrides: { published_on: Marking.content() } })),
      hand: (rows) => (rows as BenchBook[]).map(handBookUntimed)
    },
    {
      id: 'invoice',
      label: 'invoice (nested, lists of choices, affordances)',
      rows: invoices,
      generic: project(buildProjection(Invoice.schema, { name: 'bench', timeZone: 'UTC' })),
      hand: (rows) => (rows as PresentedInvoice[]).map(handInvoice)
    }
  ]
}

const STATUSES = ['PENDING_REVIEW', 'LEGACY_REVIEW', 'PAID'] as const

/** Invoice `id` as the invoices route decodes it from the store: JSON columns parsed, note optional. */
function benchInvoice (id: number): Parameters<typeof Invoice.present>[0] {
  const issued = new Date(Date.UTC(2026, 0, 1) + id * 3_600_000).toISOString().replace('.000Z', 'Z')
  return {
    id,
    number: `INV-${id}`,
    etag: `W/${id}`,
    status: STATUSES[id % 3],
    kind: STATUSES[(id + 1) % 3],
    priority: (id % 2) + 1,
    urgency: id % 3 === 0 ? null : (id % 2) + 1,
    issued_at: issued,
    tags: [STATUSES[id % 3], STATUSES[(id + 2) % 3]],
    lines: Array.from({ length: (id % 3) + 1 }, (_, i) => ({ sku: `S${id}-${i}`, internal_cost: `${i + 1}.50` })),
    customer: { name: `Customer ${id % 50}`, secret: `ref-${id}` },
    ...(id % 2 === 0 ? { note: `Note ${id}` } : {})
  } as unknown as Parameters<typeof Invoice.present>[0]
}

/** Iterations of a run lasting about RUN_MS, after a warm-up of both functions. */
function calibrate (subject: Subject): number {
  for (let i = 0; i < 3; i++) {
    subject.generic(subject.rows)
    subject.hand(subject.rows)
  }
  const started = performance.now()
  subject.generic(subject.rows)
  return Math.max(1, Math.ceil(RUN_MS / Math.max(performance.now() - started, 0.01)))
}

let sink: unknown

function rowsPerSecond (fn: (rows: readonly unknown[]) => unknown, rows: readonly unknown[], iterations: number): number {
  const started = performance.now()
  for (let i = 0; i < iterations; i++) sink = fn(rows)
  const elapsed = performance.now() - started
  if (sink === undefined) throw new Error('nothing projected')
  return (rows.length * iterations) / (elapsed / 1000)
}

main()
