// Every answer names its request: `X-Request-Id` is the id Fastify gave the request (the caller's,
// when it was safe to keep: src/http/request-id.ts, the server's `genReqId`), the id every log line
// of the request carries (`reqId`) and every problem body (`request_id`).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { REQUEST_ID_HEADER } from '../src/http/request-id.js'

async function requestId (app: FastifyInstance): Promise<void> {
  // First, so that an answer refused by a later hook (a 401, a 429, a shed 503) names it too.
  app.addHook('onRequest', function echoRequestId (request: FastifyRequest, reply: FastifyReply, done: () => void) {
    reply.header(REQUEST_ID_HEADER, request.id)
    done()
  })
}

export default fp(requestId, { name: 'request-id' })
