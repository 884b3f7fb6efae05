// Line windows over a text: 1-based, inclusive, an end past the text cut to its last line, a
// window wider than the ceiling clamped and disclosed.
import { invalidArguments } from '../core/errors.js'
import type { JsonSchema } from '../projection/index.js'
import { continuationSchema, withContinuation } from './continuation.js'
import { agentParameter, ASK_AS_AN_AGENT, positiveInteger, type PagingStyle, type Window } from './style.js'

export interface LineOptions {
  readonly style: 'lines'
  /** The most lines a window holds (default 200). */
  readonly ceiling?: number
}

export const LINE_DEFAULTS = { ceiling: 200 } as const

export interface LineWindow extends Window {
  readonly startLine: number
  /** The last line served; `startLine - 1` when the window is empty (start past the end). */
  readonly endLine: number
  readonly total: number
  /** Whether the requested window was wider than the ceiling. */
  readonly clamped: boolean
}

/** What a line window reports: 1-based, inclusive. */
export interface LineState {
  readonly startLine: number
  /** The last line served; `startLine - 1` for an empty window, so `returned = end - start + 1`. */
  readonly endLine: number
  readonly total: number
  /** The window's ceiling in lines, when the request asked for a wider window. */
  readonly clampedTo?: number
}

export function lineStyle (options: Omit<LineOptions, 'style'> = {}): PagingStyle<LineWindow> {
  const ceiling = positiveInteger('ceiling', options.ceiling ?? LINE_DEFAULTS.ceiling)
  return {
    parameters: {
      start_line: agentParameter('The first line of the window, from 1; send the previous window\'s next_start_line to go on.', { minimum: 1, default: 1 }),
      end_line: agentParameter(
        `The last line of the window, inclusive, not before start_line; default start_line + ${ceiling - 1}. A window wider than ${ceiling} lines is served at ${ceiling} and disclosed.`,
        { minimum: 1 }
      )
    },
    agentsOnly: `Line windows apply to agents only: a plain client gets the whole text. ${ASK_AS_AN_AGENT} for a window.`,
    window: (query, total) => lineWindow(query.start_line, query.end_line, total, ceiling),
    envelope: (lines, window) => lineEnvelope(lines, {
      startLine: window.startLine,
      endLine: window.endLine,
      total: window.total,
      clampedTo: window.clamped ? ceiling : undefined
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
export function lineWindow (startLine: number | undefined, endLine: number | undefined, total: number, ceiling: number = LINE_DEFAULTS.ceiling): LineWindow {
  const start = startLine ?? 1
  // The schema cannot compare two parameters; this is the one rule it leaves to us.
  if (endLine !== undefined && endLine < start) {
    throw invalidArguments({ end_line: [`Must be at least start_line (${start}): a window runs from start_line to end_line, inclusive.`] })
  }
  const cut = Math.min(endLine ?? start + ceiling - 1, total)
  const widest = start + ceiling - 1
  const end = Math.max(start - 1, Math.min(cut, widest))
  return { offset: start - 1, limit: end - start + 1, startLine: start, endLine: end, total, clamped: cut > widest }
}

export function lineEnvelope (lines: readonly unknown[], state: LineState): Record<string, unknown> {
  const { startLine, endLine, total, clampedTo } = state
  const hasMore = endLine < total
  const envelope = { lines, start_line: startLine, end_line: endLine, returned: lines.length, total_lines: total, has_more: hasMore }
  return withContinuation(
    envelope,
    hasMore ? { parameter: 'start_line', value: endLine + 1, unit: 'lines' } : undefined,
    clampedTo === undefined ? undefined : `end_line was clamped to ${endLine}, as a window holds at most ${clampedTo} lines`
  )
}

export function lineEnvelopeSchema (item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      lines: { type: 'array', items: item, description: 'The window\'s lines, in order.' },
      start_line: { type: 'integer', minimum: 1, description: 'The first line of the window (1-based), as sent.' },
      end_line: {
        type: 'integer',
        minimum: 0,
        description: 'The last line served (inclusive). For an empty window (start_line past the end) it is start_line - 1, so returned = end_line - start_line + 1 always holds.'
      },
      returned: { type: 'integer', minimum: 0, description: 'How many lines the window holds.' },
      total_lines: { type: 'integer', minimum: 0, description: 'How many lines the text has.' },
      has_more: { type: 'boolean', description: 'Whether lines follow this window: read on until it is false.' },
      ...continuationSchema('next_start_line', 'The start_line to send for the next window (end_line + 1). Present only when has_more is true.', 'end_line')
    },
    required: ['lines', 'start_line', 'end_line', 'returned', 'total_lines', 'has_more']
  }
}
