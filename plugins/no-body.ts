// GET and HEAD take no body. One that announces a body (a Content-Length other than 0, or any
// Transfer-Encoding) is refused before anything reads it, and the connection is closed once the
// problem is sent, so a client cannot hold a socket by trickling a body no route would read.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'

const BODILESS = new Set(['GET', 'HEAD'])

async function noBody (app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async function refuseBody (request: FastifyRequest, reply: FastifyReply) {
    if (!BODILESS.has(request.method) || !announcesBody(request)) return
    reply.header('connection', 'close')
    // Once the answer is handed to the socket, the unread body is dropped with the connection.
    reply.raw.once('finish', () => { request.raw.socket.destroy() })
    throw problem('AG_BODY_NOT_ALLOWED', `A ${request.method} request takes no body: send it without one.`)
  })
}

export default fp(noBody, { name: 'no-body', dependencies: ['problems'] })

function announcesBody (request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return (length !== undefined && length.trim() !== '0') || request.headers['transfer-encoding'] !== undefined
}
