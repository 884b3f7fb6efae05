// Every envelope an agent is served is built here, one builder per style beside its schema, so no
// route can ship a half-formed envelope and the resume field, the clamp disclosure and the hint
// are written once for every style that has them.
import type { JsonSchema } from '../projection/index.js'

/** What the page style served: the page and how many there are at the limit used. */
export interface PageState {
  readonly page: number
  readonly totalPages: number
}

/** What the offset style served, before the page's items are known. */
export interface OffsetState {
  /** The noun the total is counted in (`entries` -> `total_entries`). */
  readonly unit: string
  readonly total: number
  /** As sent (0 when absent), even at or past the end. */
  readonly offset: number
  /** The limit actually used. */
  readonly limit: number
  /** The ceiling `limit` was clamped to, when the request asked for more. */
  readonly clampedTo?: number
}

/** What a line window served: 1-based, inclusive. */
export interface LineState {
  readonly startLine: number
  /** The last line served; `startLine - 1` for an empty window, so `returned = end - start + 1`. */
  readonly endLine: number
  readonly total: number
  /** The window's ceiling in lines, when the request asked for a wider window. */
  readonly clampedTo?: number
}

export function pageEnvelope (items: readonly unknown[], state: PageState): Record<string, unknown> {
  return { items, page: state.page, totalPages: state.totalPages, hasNext: state.page < state.totalPages }
}

export function pageEnvelopeSchema (item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      items: { type: 'array', items: item },
      page: { type: 'integer', description: 'The page actually served.' },
      totalPages: { type: 'integer', description: 'How many pages there are at the limit actually used.' },
      hasNext: { type: 'boolean', description: 'Whether a page follows this one.' }
    },
    required: ['items', 'page', 'totalPages', 'hasNext']
  }
}

/**
 * `has_more` counts from the offset as sent and what was actually returned against the exact
 * total, so `next_offset` always moves forward: an agent paging "until false" cannot loop.
 */
export function offsetEnvelope (items: readonly unknown[], state: OffsetState): Record<string, unknown> {
  const { unit, total, offset, limit, clampedTo } = state
  const returned = items.length
  const hasMore = offset + returned < total
  const envelope = { items, has_more: hasMore, [`total_${unit}`]: total, returned, offset, limit }
  return disclose(
    envelope,
    hasMore ? { parameter: 'offset', value: offset + returned, unit } : undefined,
    clampedTo === undefined ? undefined : `limit was clamped to the maximum of ${clampedTo}`
  )
}

export function offsetEnvelopeSchema (item: JsonSchema, unit: string): JsonSchema {
  return {
    type: 'object',
    properties: {
      items: { type: 'array', items: item, description: `This page's ${unit}, in a stable order.` },
      has_more: { type: 'boolean', description: `Whether ${unit} follow this page: page until it is false.` },
      [`total_${unit}`]: { type: 'integer', minimum: 0, description: `How many ${unit} there are in all (exact).` },
      returned: { type: 'integer', minimum: 0, description: `How many ${unit} this page holds.` },
      offset: { type: 'integer', minimum: 0, description: 'The offset as sent: how many were skipped before this page.' },
      limit: { type: 'integer', minimum: 1, description: 'The limit actually used.' },
      ...resumeField('next_offset', 'The offset to send for the next page (offset + returned). Present only when has_more is true.'),
      ...disclosureFields('limit')
    },
    required: ['items', 'has_more', `total_${unit}`, 'returned', 'offset', 'limit']
  }
}

export function lineEnvelope (lines: readonly unknown[], state: LineState): Record<string, unknown> {
  const { startLine, endLine, total, clampedTo } = state
  const hasMore = endLine < total
  const envelope = { lines, start_line: startLine, end_line: endLine, returned: lines.length, total_lines: total, has_more: hasMore }
  return disclose(
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
      ...resumeField('next_start_line', 'The start_line to send for the next window (end_line + 1). Present only when has_more is true.'),
      ...disclosureFields('end_line')
    },
    required: ['lines', 'start_line', 'end_line', 'returned', 'total_lines', 'has_more']
  }
}

/** How to resume: the request parameter to send next, its value and what it gets. */
interface Continuation {
  readonly parameter: string
  readonly value: number
  readonly unit: string
}

/**
 * The optional tail every resumable style shares. Absent keys are absent, never false or null:
 * an agent tests presence. The hint exists exactly when there is something to do or disclose.
 */
function disclose (envelope: Record<string, unknown>, next: Continuation | undefined, clamp: string | undefined): Record<string, unknown> {
  if (next !== undefined) envelope[`next_${next.parameter}`] = next.value
  if (clamp !== undefined) envelope.limit_clamped = true
  const clauses = []
  if (next !== undefined) clauses.push(`Send ${next.parameter}=${next.value} to get the next ${next.unit}; repeat until has_more is false`)
  if (clamp !== undefined) clauses.push(clamp)
  if (clauses.length > 0) envelope.hint = `${clauses.join('; ')}.`
  return envelope
}

function resumeField (name: string, description: string): Record<string, JsonSchema> {
  return { [name]: { type: 'integer', minimum: 1, description } }
}

function disclosureFields (parameter: string): Record<string, JsonSchema> {
  return {
    limit_clamped: {
      type: 'boolean',
      const: true,
      description: `Present (true) only when ${parameter} asked for more than the ceiling and was served at it.`
    },
    hint: {
      type: 'string',
      description: 'One sentence for a model: the parameter and value to send next, and any clamp. Present only when has_more or limit_clamped.'
    }
  }
}
