// How far V8 lets the old generation grow past what was live at its last full collection before it
// collects again. Left to itself, V8 lets it grow up to four times the live size while collections
// are rare, and a long stream (rows parsed, then promoted while their batch is written) fills that
// with garbage: a million-row list read through PostgreSQL's cursor took the process from 150 MB
// to 290 MB, all of it collected at the next full collection. Bounding the growth keeps the process
// near its live size for a little more collection work (docs/performance.md has the figures).
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
