// What the gateway refuses before reading a request, each as a problem like any other refusal: a
// transfer coding that does not end with chunked (no length can be told); a GET or HEAD that
// announces a body (refused unread, its connection closed once the problem is sent, so no client
// holds a socket by trickling a body no route reads); an HTTP/1.1 request without Host; a Host or
// Authorization sent twice, or a Host that is not one; an expectation other than 100-continue (Node
// would answer a bare 417); and CONNECT (Node would drop the connection).
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'
import { problemOf } from '../src/core/problem.js'
import { endWithProblem, writeRawProblem } from '../src/http/raw-answer.js'
import { apiSecurityHeaders } from './security-headers.js'

const BODILESS = new Set(['GET', 'HEAD'])

/**
 * Headers a request carries once at most (RFC 9112 asks a 400 for a second Host). Node keeps the
 * first of each and drops the rest unseen, so a proxy in front that reads the last would disagree
 * with the gateway about who the request is for, or whose key it carries.
 */
const ONCE_BY_LOWER: ReadonlyMap<string, string> = new Map(['Host', 'Authorization'].map((name) => [name.toLowerCase(), name]))
const ONCE_LENGTHS: ReadonlySet<number> = new Set([...ONCE_BY_LOWER.keys()].map((name) => name.length))

/** RFC 3986's host (a name, IPv4, or an IP literal in brackets) and an optional port; empty is allowed. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::[0-9]*)?$/

async function wellFormed (app: FastifyInstance): Promise<void> {
  // With `done` rather than async: run on every request, spared a promise and a microtask. What it
  // throws reaches the problems plugin all the same.
  app.addHook('onRequest', function refuseMalformed (request: FastifyRequest, reply: FastifyReply, done: () => void) {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw problem('AG_MALFORMED_REQUEST', 'An HTTP/1.1 request must carry a Host header.')
    }
    const repeated = repeatedHeader(request.raw.rawHeaders)
    if (repeated !== undefined) throw problem('AG_MALFORMED_REQUEST', `The request carries ${repeated} more than once: send it once.`)
    if (request.headers.host !== undefined && !HOST.test(request.headers.host)) {
      throw problem('AG_MALFORMED_REQUEST', 'The Host header is not a host and an optional port (RFC 9110, section 7.2).')
    }
    const codings = request.headers['transfer-encoding']
    if (codings !== undefined && codings.split(',').at(-1)?.trim().toLowerCase() !== 'chunked') {
      // RFC 9112, section 6.3: the body's length cannot be told, so 400, then the connection closed.
      closeOnceAnswered(request, reply)
      throw problem('AG_MALFORMED_REQUEST', 'A request\'s Transfer-Encoding must end with chunked: the length of its body cannot be told otherwise.')
    }
    if (!BODILESS.has(request.method) || !announcesBody(request)) {
      done()
      return
    }
    closeOnceAnswered(request, reply)
    throw problem('AG_BODY_NOT_ALLOWED', `A ${request.method} request takes no body: send it without one.`)
  })

  const security = apiSecurityHeaders()
  // Node answers an expectation other than 100-continue with a bare 417 of its own, unless told.
  app.server.on('checkExpectation', function refuseExpectation (_request: IncomingMessage, response: ServerResponse) {
    endWithProblem(response, problemOf(problem('AG_EXPECTATION_FAILED', 'The only expectation understood is 100-continue: send the request without Expect.')), security)
  })
  app.server.on('connect', function refuseConnect (_request: IncomingMessage, socket: Duplex) {
    const refused = Object.assign(problem('AG_METHOD_NOT_ALLOWED', 'CONNECT is not served: this is an API, not a proxy.'), { headers: { Allow: 'GET, HEAD, OPTIONS' } })
    writeRawProblem(socket, problemOf(refused), security)
  })
}

export default fp(wellFormed, { name: 'well-formed', dependencies: ['problems'] })

/**
 * The first header of ONCE_BY_LOWER that `raw` (names and values, alternating) carries a second
 * time, by its name: one pass, lower-casing only the names of a length one of them has.
 */
function repeatedHeader (raw: readonly string[]): string | undefined {
  const seen = new Set<string>()
  for (let i = 0; i < raw.length; i += 2) {
    const name = ONCE_LENGTHS.has(raw[i].length) ? ONCE_BY_LOWER.get(raw[i].toLowerCase()) : undefined
    if (name === undefined) continue
    if (seen.has(name)) return name
    seen.add(name)
  }
  return undefined
}

/** The connection closed once the answer is handed to the socket: the body the request announced is never read. */
export function closeOnceAnswered (request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close')
  reply.raw.once('finish', () => { request.raw.socket.destroy() })
}

/** Whether the request announces a body (a length other than 0, or a transfer coding). */
export function announcesBody (request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return (length !== undefined && length.trim() !== '0') || request.headers['transfer-encoding'] !== undefined
}
