// The tail every resumable envelope shares (offset style, line windows): where to resume, whether a
// clamp was applied, and one hint sentence for a model. Written once, so no style words it alone.
import type { JsonSchema } from '../projection/index.js'

/** How to resume: the request parameter to send next, its value and what it gets. */
export interface Continuation {
  readonly parameter: string
  readonly value: number
  readonly unit: string
  /** The other arguments to send again with it (a list's filters), if any. */
  readonly keep?: readonly string[]
}

/**
 * Adds the optional tail to `envelope`. Absent keys are absent, never false or null: an agent tests
 * presence. The hint exists exactly when there is something to do or to own up to.
 */
export function withContinuation (envelope: Record<string, unknown>, next: Continuation | undefined, clamp: string | undefined): Record<string, unknown> {
  if (next !== undefined) envelope[`next_${next.parameter}`] = next.value
  if (clamp !== undefined) envelope.limit_clamped = true
  const clauses = []
  if (next !== undefined) clauses.push(`Send ${next.parameter}=${next.value}${again(next.keep)} to get the next ${next.unit}; repeat until has_more is false`)
  if (clamp !== undefined) clauses.push(clamp)
  if (clauses.length > 0) envelope.hint = `${clauses.join('; ')}.`
  return envelope
}

/** ` with the same status and number_prefix`, when a request must send those again. */
function again (keep: readonly string[] = []): string {
  if (keep.length === 0) return ''
  return ` with the same ${keep.length === 1 ? keep[0] : `${keep.slice(0, -1).join(', ')} and ${keep[keep.length - 1]}`}`
}

/** The schema of the tail: the resume field named `name`, the clamp flag and the hint. */
export function continuationSchema (name: string, description: string, clampedParameter: string): Record<string, JsonSchema> {
  return {
    [name]: { type: 'integer', minimum: 1, description },
    limit_clamped: {
      type: 'boolean',
      const: true,
      description: `Present (true) only when ${clampedParameter} asked for more than the ceiling and was served at it.`
    },
    hint: {
      type: 'string',
      description: 'One sentence for a model: the parameter and value to send next, and any clamp. Present only when has_more or limit_clamped.'
    }
  }
}
