// How a route's answers are published in OpenAPI: its body in each audience's media type, and the
// problems it can answer with, described from the error registry.
import { JSON_VARIANTS, PROBLEM_MEDIA_TYPE, type Variants } from '../audience.js'
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
  'Idempotent-Replayed': { type: 'string', enum: ['true'], description: 'Sent when the answer is an earlier call\'s with the same Idempotency-Key, which acted; this one did not.' },
  'Retry-After': { type: 'integer', minimum: 0, description: 'How many seconds to wait before trying again.' },
  'WWW-Authenticate': { type: 'string', description: 'How to authenticate: `Bearer`, with why the credentials were refused; on a 403, the scope the key lacks (`error="insufficient_scope", scope="..."`), where that is why.' },
  'X-RateLimit-Limit': { type: 'integer', minimum: 0, description: 'Requests this key (or address) may make per window. Sent on every answer the rate limit counted, none when it is off (RATE_LIMIT_MAX=0).' },
  'X-RateLimit-Remaining': { type: 'integer', minimum: 0, description: 'Requests left in this window. Sent with X-RateLimit-Limit.' },
  'X-RateLimit-Reset': { type: 'integer', minimum: 0, description: 'Seconds until the window starts again. Sent with X-RateLimit-Limit.' }
} as const

type HeaderName = keyof typeof RESPONSE_HEADERS

/** `names`, declared as a response's headers. */
export function headers (...names: HeaderName[]): Record<string, object> {
  return Object.fromEntries(names.map((name) => [name, RESPONSE_HEADERS[name]]))
}

/** What the rate limit sends on every answer it counted (plugins/rate-limit.ts). */
const RATE_LIMITED: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']

/** Which headers each status of a mounted route is answered with, beside `Vary` on every one. */
const HEADERS_BY_STATUS: Readonly<Record<number, HeaderName[]>> = {
  401: ['WWW-Authenticate'],
  403: ['WWW-Authenticate'],
  409: ['Retry-After'],
  416: ['Content-Range'],
  429: ['Retry-After'],
  503: ['Retry-After']
}

/**
 * The problems answered before the rate limit counts the request, so without its headers: its hook
 * runs after those of the audience, auth, well-formedness and load shedding (src/gateway.ts), and
 * the server answers a few before any hook. Every other answer of a mounted route carries them.
 */
const BEFORE_THE_LIMIT: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  'AG_UNKNOWN_AUDIENCE', 'AG_NOT_ACCEPTABLE', 'AG_UNAUTHORIZED', 'AG_FORBIDDEN', 'AG_ISSUER_UNAVAILABLE', 'AG_BODY_NOT_ALLOWED', 'AG_OVERLOADED',
  'AG_MALFORMED_REQUEST', 'AG_REQUEST_TIMEOUT', 'AG_HEADERS_TOO_LARGE', 'AG_METHOD_NOT_ALLOWED'
])

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

/** An action's result: each audience's record under its own media type, without a validator (nothing cached names it). */
export function resultResponse (bodies: Bodies, description: string): object {
  return {
    description,
    headers: headers('Vary', 'Idempotent-Replayed', ...RATE_LIMITED),
    content: {
      [JSON_VARIANTS.plain]: { schema: bodies.plain },
      [JSON_VARIANTS.agent]: { schema: bodies.agent }
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

/** The statuses an answer can take once the handler has set its headers: conditional, a range past the end, a failed read. */
const AFTER_THE_HANDLER = new Set<number | '5xx'>([304, 412, 416, 503, '5xx'])

/**
 * A 304 (unless `conditional` is false: an action's), then one response per status the codes can answer with, described by what each code is
 * answered for; a 414 where a path parameter can be too long, and any other server failure.
 * `handlerHeaders` are the headers the handler sets before its answer is sure (a byte resource's
 * Accept-Ranges), declared on the statuses that keep them.
 */
export function problemResponses (codes: readonly ProblemCode[], hasPathParameters: boolean, handlerHeaders: HeaderName[] = [], conditional = true): Record<string, object> {
  const whens = new Map<number, string[]>()
  // The statuses answered, for one code at least, after the rate limit counted the request.
  const counted = new Set<number>()
  for (const code of codes) {
    const { status, when } = PROBLEM_KINDS[code]
    whens.set(status, [...whens.get(status) ?? [], when])
    if (!BEFORE_THE_LIMIT.has(code)) counted.add(status)
  }
  // Answered by the router, before any hook.
  if (hasPathParameters) whens.set(414, [])
  const kept = (status: number | '5xx'): HeaderName[] => AFTER_THE_HANDLER.has(status) ? handlerHeaders : []
  const responses: Record<string, object> = conditional ? { 304: notModifiedResponse('Vary', ...kept(304), ...RATE_LIMITED) } : {}
  for (const [status, described] of [...whens.entries()].sort(([a], [b]) => a - b)) {
    const sent = headers('Vary', ...HEADERS_BY_STATUS[status] ?? [], ...kept(status), ...counted.has(status) ? RATE_LIMITED : [])
    responses[status] = problemResponse(described.length === 0 ? URI_TOO_LONG : `A problem (RFC 9457): ${described.join(', or ')}.`, sent)
  }
  responses['5xx'] = problemResponse(SERVER_ERROR, headers('Vary', ...kept('5xx'), ...RATE_LIMITED))
  return responses
}
