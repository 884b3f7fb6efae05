// The V8 settings of a process serving the gateway, each set once at start.
//
// How far V8 lets the old generation grow past what was live at its last full collection before it
// collects again. Left to itself, V8 lets it grow up to four times the live size while collections
// are rare, and a long stream (rows parsed, then promoted while their batch is written) fills that
// with garbage: a million-row list read through PostgreSQL's cursor took the process from 150 MB
// to 290 MB, all of it collected at the next full collection. Bounding the growth keeps the process
// near its live size for a little more collection work (docs/performance.md has the figures).
//
// And no pretenuring: a page's rows die young, whatever one young collection happened to see.
import { setFlagsFromString } from 'node:v8'

/**
 * The live size again: the stream above then grows the process by about 50 MB instead of 135, for
 * about a tenth more CPU on PostgreSQL's plain lists (50 % would keep it to 30 MB for a fifth more).
 */
export const HEAP_GROWING_DEFAULT_PERCENT = 100

/**
 * Bounds this process's old-generation growth to `percent` of the live size; 0 leaves V8's own rule.
 * `setFlags` is V8's own setter, and a recorder in tests.
 */
export function boundHeapGrowth (percent: number, setFlags: (flags: string) => void = setFlagsFromString): void {
  // Read by V8 each time it sets the next collection's limit, so it applies from the next one on.
  if (percent > 0) setFlags(`--heap-growing-percent=${percent}`)
}

/**
 * Turns V8's allocation-site pretenuring off for this process. V8 counts, for each place in the
 * code that makes objects, how many of those made since its last young collection the collection
 * finds alive; when nearly all are, with the young generation at its largest, it makes that
 * place's objects in the old generation for the rest of the process's life. One collection that
 * comes while a few requests are between their read and their answer finds nearly every row made
 * since the last one alive, and a place that makes a page's rows (src/store/rows.ts names them,
 * the projection makes its own) is pretenured: from then on each row is made old, and the young
 * values it holds are promoted at every young collection (about 560 kB each time, a page from
 * scratch about a fifth more CPU: docs/performance.md). A gateway's long-lived objects (kept
 * answers, totals, statements) are few, and copied once more on their way to the old generation.
 */
export function turnOffPretenuring (setFlags: (flags: string) => void = setFlagsFromString): void {
  setFlags('--no-allocation-site-pretenuring')
}

/**
 * The V8 settings of a process serving the gateway, as `npm start` sets them (and the bench's
 * gateway, so that what is measured is what ships): the old generation's growth bounded to
 * `percent` of the live size (0: V8's own rule), and no pretenuring.
 */
export function configureHeap (percent: number, setFlags: (flags: string) => void = setFlagsFromString): void {
  boundHeapGrowth(percent, setFlags)
  turnOffPretenuring(setFlags)
}
