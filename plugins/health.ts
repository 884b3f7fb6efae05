// Liveness and readiness for a load balancer: alive while the process serves, ready while the
// store answers, the process is not shedding load and not shutting down. Probes are never rate limited.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import Type from 'typebox'
import { problem } from '../src/core/errors.js'
import { headers, notModifiedResponse, problemResponse } from '../src/http/responses.js'
import { named } from '../src/openapi/components.js'

const Health = named(Type.Object({ status: Type.String({ description: '"ok" when healthy.' }) }, { description: 'A health check\'s answer.' }), 'Health')

/** An If-Match naming nothing current, a body sent: probes are GETs like any other. */
const PRECONDITION_FAILED = problemResponse('A problem (RFC 9457): If-Match names no current representation.')
const BODY_NOT_ALLOWED = problemResponse('A problem (RFC 9457): a body on a GET or HEAD request.')

const HEALTHY = { description: 'Healthy.', headers: headers('ETag'), content: { 'application/json': { schema: Health } } }

/** Not ready: shutting down, the store does not answer, or the process is shedding load. */
const NOT_READY = problemResponse('A problem (RFC 9457): the replica is shutting down, the store does not answer, or the server is overloaded.', headers('Retry-After'))

async function health (app: FastifyInstance): Promise<void> {
  app.get('/healthz', {
    config: { shed: false, rateLimit: false },
    schema: {
      operationId: 'checkLiveness',
      summary: 'Liveness: the process serves requests.',
      description: 'For a load balancer or an orchestrator: 200 while the process serves requests, even while it sheds load. Never rate limited.',
      tags: ['health'],
      response: { 200: HEALTHY, 304: notModifiedResponse(), 412: PRECONDITION_FAILED, 413: BODY_NOT_ALLOWED }
    }
  }, async () => ({ status: 'ok' }))

  app.get('/readyz', {
    config: { rateLimit: false },
    schema: {
      operationId: 'checkReadiness',
      summary: 'Readiness: the store answers.',
      description: 'For a load balancer: 200 while the store answers, the process is not shedding load and it is not shutting down, else 503. Never rate limited.',
      tags: ['health'],
      response: { 200: HEALTHY, 304: notModifiedResponse(), 412: PRECONDITION_FAILED, 413: BODY_NOT_ALLOWED, 503: NOT_READY }
    }
  }, async (request) => {
    // At once on SIGTERM, while every other route is still served: the balancer takes the replica out.
    if (app.draining) throw problem('AG_SHUTTING_DOWN', 'The replica is shutting down: route requests to another.')
    try {
      await app.store.probe()
    } catch (err) {
      request.log.warn({ err }, 'store not ready')
      throw problem('AG_STORE_UNAVAILABLE', 'The store does not answer.')
    }
    return { status: 'ok' }
  })
}

export default fp(health, { name: 'health', dependencies: ['store', 'drain'] })
