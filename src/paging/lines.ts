// Line windows over a text resource: 1-based, inclusive, an end past the text cut to its last line,
// a window wider than the ceiling clamped and disclosed.
import Type from 'typebox'
import { invalidArguments } from '../errors.js'
import { lineEnvelope, lineEnvelopeSchema } from './envelope.js'
import type { PagingStyle, Window } from './style.js'

export const DEFAULT_MAX_LINES = 200

export interface LineWindow extends Window {
  readonly startLine: number
  /** The last line served; `startLine - 1` when the window is empty (start past the end). */
  readonly endLine: number
  readonly total: number
  /** Whether the requested window was wider than the ceiling. */
  readonly clamped: boolean
}

export interface LineStyleOptions {
  /** The ceiling on a window's width, in lines (default 200). */
  maxLines?: number
}

export function lineStyle (options: LineStyleOptions = {}): PagingStyle<LineWindow> {
  const { maxLines = DEFAULT_MAX_LINES } = options
  if (!Number.isInteger(maxLines) || maxLines < 1) throw new RangeError(`maxLines must be a positive integer; got ${maxLines}.`)
  return {
    parameters: {
      start_line: Type.Optional(Type.Integer({
        minimum: 1,
        default: 1,
        description: 'Agents only. The first line of the window, from 1; send the previous window\'s next_start_line to go on.'
      })),
      // No maximum: a window wider than the ceiling is clamped and disclosed, not refused.
      end_line: Type.Optional(Type.Integer({
        minimum: 1,
        description: `Agents only. The last line of the window, inclusive, not before start_line; default start_line + ${maxLines - 1}. A window wider than ${maxLines} lines is served at ${maxLines} and disclosed.`
      }))
    },
    window: (query, total) => lineWindow(query.start_line, query.end_line, total, maxLines),
    envelope: (lines, window) => lineEnvelope(lines, {
      startLine: window.startLine,
      endLine: window.endLine,
      total: window.total,
      clampedTo: window.clamped ? maxLines : undefined
    }),
    schema: lineEnvelopeSchema
  }
}

/**
 * The end is cut to the text first (not a clamp: nothing was refused), then to the ceiling
 * (a clamp). A start past the end serves an empty window ending at `start - 1`, which keeps
 * `returned = end - start + 1` and `has_more = end < total` true of every window. `start < 1`
 * never gets here: the parameters' schema refuses it.
 */
export function lineWindow (startLine: number | undefined, endLine: number | undefined, total: number, maxLines = DEFAULT_MAX_LINES): LineWindow {
  const start = startLine ?? 1
  // The schema cannot compare two parameters; this is the one rule it leaves to us.
  if (endLine !== undefined && endLine < start) {
    throw invalidArguments({ end_line: [`Must be at least start_line (${start}): a window runs from start_line to end_line, inclusive.`] })
  }
  const cut = Math.min(endLine ?? start + maxLines - 1, total)
  const ceiling = start + maxLines - 1
  const end = Math.max(start - 1, Math.min(cut, ceiling))
  return { offset: start - 1, limit: end - start + 1, startLine: start, endLine: end, total, clamped: cut > ceiling }
}
