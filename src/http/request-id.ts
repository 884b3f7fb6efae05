// A request's id: the caller's `X-Request-Id` when it is safe to repeat (in logs, in answers, to
// upstreams), otherwise a new one. Fastify calls it once per request (`genReqId`), before any hook.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

export const REQUEST_ID_HEADER = 'x-request-id'

/** At most 128 characters of letters, digits and `- _ . : /`: nothing a log or a header could misread. */
export const REQUEST_ID_PATTERN = /^[\w.:/-]{1,128}$/

/** The caller's id when it matches REQUEST_ID_PATTERN (one header only), else a random UUID. */
export function requestIdOf (request: IncomingMessage): string {
  const sent = request.headers[REQUEST_ID_HEADER]
  return typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID()
}
