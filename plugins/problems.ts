// One error handler and one not-found handler: every failure leaves as application/problem+json
// (RFC 9457). A 5xx is logged with its cause and says nothing internal; a 4xx says what to fix.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { PROBLEM_MEDIA_TYPE } from '../src/audience.js'
import { problem } from '../src/core/errors.js'
import { problemOf } from '../src/core/problem.js'

async function problems (app: FastifyInstance): Promise<void> {
  app.setErrorHandler(sendProblem)
  app.setNotFoundHandler(function notFound (request, reply) {
    const path = request.url.split('?')[0]
    return sendProblem(problem('AG_NOT_FOUND', `No route matches ${request.method} ${path}.`), request, reply)
  })
}

export default fp(problems, { name: 'problems' })

function sendProblem (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status, body, headers } = problemOf(error)
  if (status >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.info({ status, type: body.type }, 'request rejected')
  return reply.code(status).headers(headers).type(PROBLEM_MEDIA_TYPE).send(body)
}
