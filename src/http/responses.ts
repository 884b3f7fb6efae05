// How a route's answers are published in OpenAPI: its body in each audience's media type, and the
// problems it can answer with, described from the error registry.
import { PROBLEM_MEDIA_TYPE, type Variants } from '../audience.js'
import { PROBLEM_KINDS, type ProblemCode } from '../core/errors.js'
import { Problem } from '../core/problem.js'
import type { Bodies } from '../core/schemas.js'
import { named } from '../openapi/components.js'

/** The response headers the gateway sends, as the document declares them. */
export const RESPONSE_HEADERS = {
  ETag: { type: 'string', description: 'The validator of this representation (each audience\'s its own); send it in If-None-Match to be answered 304 while it holds. A plain list\'s is weak: it names the data and the statement that reads it; a list read from an upstream API has none.' },
  Vary: { type: 'string', description: 'What the variant served depends on: Accept and X-Audience (and Origin where CORS is on).' },
  'Accept-Ranges': { type: 'string', enum: ['bytes'], description: 'A byte resource\'s plain variant: send `Range: bytes=<first>-<last>` (or `<first>-`, or `-<count>`) for part of it, and If-Range with its ETag to get the part only while the content is the same.' },
  'Content-Length': { type: 'integer', minimum: 0, description: 'How many bytes the body holds.' },
  'Content-Range': { type: 'string', description: 'Which bytes a 206 holds, of how many (`bytes 0-99/4711`); on a 416, the length alone (`bytes */4711`).' },
  'Retry-After': { type: 'integer', minimum: 0, description: 'How many seconds to wait before trying again.' },
  'WWW-Authenticate': { type: 'string', description: 'How to authenticate: `Bearer`, with why the credentials were refused; on a 403, the scope the key lacks (`error="insufficient_scope", scope="..."`), where that is why.' },
  'X-RateLimit-Limit': { type: 'integer', minimum: 0, description: 'Requests this key (or address) may make per window.' },
  'X-RateLimit-Remaining': { type: 'integer', minimum: 0, description: 'Requests left in this window.' },
  'X-RateLimit-Reset': { type: 'integer', minimum: 0, description: 'Seconds until the window starts again.' }
} as const

type HeaderName = keyof typeof RESPONSE_HEADERS

/** `names`, declared as a response's headers. */
export function headers (...names: HeaderName[]): Record<string, object> {
  return Object.fromEntries(names.map((name) => [name, RESPONSE_HEADERS[name]]))
}

const RATE_LIMITED: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']

/** Which headers each status of a mounted route is answered with, beside `Vary` on every one. */
const HEADERS_BY_STATUS: Readonly<Record<number, HeaderName[]>> = {
  401: ['WWW-Authenticate'],
  403: ['WWW-Authenticate'],
  416: ['Content-Range'],
  429: ['Retry-After', ...RATE_LIMITED],
  503: ['Retry-After']
}

/** A 304: the representation named in If-None-Match is still the current one. No body. */
export function notModifiedResponse (...extra: HeaderName[]): object {
  return { description: 'Not modified: the representation named in If-None-Match (or any, for `*`) is current. No body.', type: 'null', headers: headers('ETag', ...extra) }
}

/** The body of every problem response (RFC 9457). */
export const ProblemBody = named(Problem, 'Problem')

/** A documented problem response: `description` says when it is answered, `sent` which headers come with it. */
export function problemResponse (description: string, sent: Record<string, object> = {}): object {
  return { description, headers: sent, content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemBody } } }
}

/** The 200 answer: each audience's body under its own media type (and, for bytes, how to ask for part of it). */
export function bodyResponse (variants: Variants, bodies: Bodies, description: string, extra: HeaderName[] = []): object {
  return {
    description,
    headers: headers('ETag', 'Vary', ...extra, ...RATE_LIMITED),
    content: {
      [variants.plain]: { schema: bodies.plain },
      [variants.agent]: { schema: bodies.agent }
    }
  }
}

/** The 206 of a byte resource's plain variant: one range of its content. */
export function partialResponse (mediaType: string, plain: object): object {
  return {
    description: 'Part of the content: the one range a plain client\'s Range header asked for (several ranges get the whole content, a 200).',
    headers: headers('Content-Range', 'Accept-Ranges', 'Content-Length', 'ETag', 'Vary', ...RATE_LIMITED),
    content: { [mediaType]: { schema: plain } }
  }
}

/** Answered before any route runs: a path parameter longer than the server reads. */
const URI_TOO_LONG = 'A problem (RFC 9457): a path parameter longer than the server reads.'
/** Any failure of the server's own. */
const SERVER_ERROR = 'A problem (RFC 9457): the server could not complete the request.'

/**
 * A 304, then one response per status the codes can answer with, described by what each code is
 * answered for; a 414 where a path parameter can be too long, and any other server failure.
 */
export function problemResponses (codes: readonly ProblemCode[], hasPathParameters: boolean): Record<string, object> {
  const whens = new Map<number, string[]>()
  for (const code of codes) {
    const { status, when } = PROBLEM_KINDS[code]
    whens.set(status, [...whens.get(status) ?? [], when])
  }
  if (hasPathParameters) whens.set(414, [])
  const responses: Record<string, object> = { 304: notModifiedResponse('Vary') }
  for (const [status, described] of [...whens.entries()].sort(([a], [b]) => a - b)) {
    const sent = headers('Vary', ...HEADERS_BY_STATUS[status] ?? [])
    responses[status] = problemResponse(described.length === 0 ? URI_TOO_LONG : `A problem (RFC 9457): ${described.join(', or ')}.`, sent)
  }
  responses['5xx'] = problemResponse(SERVER_ERROR, headers('Vary'))
  return responses
}
