// What the gateway refuses before reading a request: a GET or HEAD that announces a body (refused
// unread, its connection closed once the problem is sent, so no client holds a socket by trickling
// a body no route reads), an HTTP/1.1 request without Host, and CONNECT, which Node would
// otherwise answer by dropping the connection. Each is a problem like any other refusal.
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'
import { problemOf } from '../src/core/problem.js'
import { writeRawProblem } from '../src/http/raw-answer.js'
import { apiSecurityHeaders } from './security-headers.js'

const BODILESS = new Set(['GET', 'HEAD'])

async function wellFormed (app: FastifyInstance): Promise<void> {
  // With `done` rather than async: run on every request, spared a promise and a microtask. What it
  // throws reaches the problems plugin all the same.
  app.addHook('onRequest', function refuseMalformed (request: FastifyRequest, reply: FastifyReply, done: () => void) {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw problem('AG_MALFORMED_REQUEST', 'An HTTP/1.1 request must carry a Host header.')
    }
    if (!BODILESS.has(request.method) || !announcesBody(request)) {
      done()
      return
    }
    reply.header('connection', 'close')
    // Once the answer is handed to the socket, the unread body is dropped with the connection.
    reply.raw.once('finish', () => { request.raw.socket.destroy() })
    throw problem('AG_BODY_NOT_ALLOWED', `A ${request.method} request takes no body: send it without one.`)
  })

  const security = apiSecurityHeaders()
  app.server.on('connect', function refuseConnect (_request: IncomingMessage, socket: Duplex) {
    const refused = Object.assign(problem('AG_METHOD_NOT_ALLOWED', 'CONNECT is not served: this is an API, not a proxy.'), { headers: { Allow: 'GET, HEAD, OPTIONS' } })
    writeRawProblem(socket, problemOf(refused), security)
  })
}

export default fp(wellFormed, { name: 'well-formed', dependencies: ['problems'] })

function announcesBody (request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return (length !== undefined && length.trim() !== '0') || request.headers['transfer-encoding'] !== undefined
}
