// How a route's answers are published in OpenAPI: its body in each audience's media type, and the
// problems it can answer with, described from the error registry.
import { PROBLEM_MEDIA_TYPE, type Variants } from '../audience.js'
import { PROBLEM_KINDS, type ProblemCode } from '../core/errors.js'
import { Problem } from '../core/problem.js'
import type { Bodies } from '../core/schemas.js'
import { named } from '../openapi/components.js'

/** The body of every problem response (RFC 9457). */
export const ProblemBody = named(Problem, 'Problem')

/** A documented problem response: `description` says when it is answered. */
export function problemResponse (description: string): object {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemBody } } }
}

/** The 200 answer: each audience's body under its own media type. */
export function bodyResponse (variants: Variants, bodies: Bodies, description: string): object {
  return {
    description,
    content: {
      [variants.plain]: { schema: bodies.plain },
      [variants.agent]: { schema: bodies.agent }
    }
  }
}

/** Answered before any route runs: a path parameter longer than the server reads. */
const URI_TOO_LONG = 'A problem (RFC 9457): a path parameter longer than the server reads.'
/** Any failure of the server's own. */
const SERVER_ERROR = 'A problem (RFC 9457): the server could not complete the request.'

/**
 * One response per status the codes can answer with, described by what each code is answered for;
 * a 414 where a path parameter can be too long, and any other server failure.
 */
export function problemResponses (codes: readonly ProblemCode[], hasPathParameters: boolean): Record<string, object> {
  const whens = new Map<number, string[]>()
  for (const code of codes) {
    const { status, when } = PROBLEM_KINDS[code]
    whens.set(status, [...whens.get(status) ?? [], when])
  }
  if (hasPathParameters) whens.set(414, [])
  const responses: Record<string, object> = {}
  for (const status of [...whens.keys()].sort((a, b) => a - b)) {
    const described = whens.get(status) ?? []
    responses[status] = problemResponse(described.length === 0 ? URI_TOO_LONG : `A problem (RFC 9457): ${described.join(', or ')}.`)
  }
  responses['5xx'] = problemResponse(SERVER_ERROR)
  return responses
}
