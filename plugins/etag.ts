// Conditional GETs: a buffered 200 gets a strong ETag naming its bytes and its audience (a streamed
// plain list comes with a weak one from its route, naming its data: src/http/route.ts), an
// If-None-Match naming it (or `*`) is answered 304, and an If-Match naming nothing current 412.
// Two hooks, each with one job: `tagAnswer` names every successful answer, `answerConditional`
// decides a request that carries a precondition, and costs a header lookup when it carries none.
import { hash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Readable } from 'node:stream'
import { PROBLEM_MEDIA_TYPE } from '../src/audience.js'
import { problem } from '../src/core/errors.js'
import { problemOf } from '../src/core/problem.js'
import { preconditionOutcome, withAudience } from '../src/http/conditional.js'
import { routeConfig } from './audience.js'

type OnSendDone = (error: Error | null, payload?: unknown) => void

async function etag (app: FastifyInstance): Promise<void> {
  // With `done` rather than async: hooks run on every answer, spared a promise and a microtask each.
  // Registered in this order, so a precondition is decided on the answer's final tag.
  app.addHook('onSend', function tagAnswer (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone) {
    tag(request, reply, payload)
    done(null, payload)
  })
  app.addHook('onSend', function answerConditional (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone) {
    const { headers } = request
    // Nothing to decide without a precondition: the answer goes as it is.
    if (headers['if-none-match'] === undefined && headers['if-match'] === undefined) {
      done(null, payload)
      return
    }
    done(null, conditional(request, reply, payload))
  })
}

/**
 * Names a successful answer to a safe request: the tag its route set (a streamed plain list's), or
 * else the SHA-1 of its buffered bytes (a stream has none), named for its audience where the route
 * has two. Only a 200 or a 206 (a byte resource's range, which keeps its content's) has one:
 * preconditions apply to successful answers only (RFC 9110 §13.2.1), and a problem has no validator.
 * Nor has the answer to a POST (an MCP message's): it is no representation a later request could validate.
 */
function tag (request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  if (!validated(request, reply)) {
    reply.removeHeader('etag')
    return
  }
  const set = reply.getHeader('etag')
  const named = typeof set === 'string' ? set : typeof payload === 'string' || payload instanceof Buffer ? `"${sha1(payload)}"` : undefined
  if (named === undefined) return
  reply.header('etag', routeConfig(request).variants === undefined ? named : withAudience(named, request.audience))
}

/** The preconditions of a request that sent one, decided on its answer as tagged. */
function conditional (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  // A 206 keeps its content's tag: If-None-Match and If-Match apply before Range.
  if (!validated(request, reply)) return payload
  // A streamed plain list without a tag of its source's: only `*` (the resource exists) can match it.
  const set = reply.getHeader('etag')
  const tag = typeof set === 'string' ? set : undefined
  const outcome = preconditionOutcome(request.headers, tag)
  if (outcome === 'failed') {
    discard(payload)
    reply.removeHeader('content-range')
    const refused = problemOf(problem('AG_PRECONDITION_FAILED', 'If-Match names no current representation of this resource: fetch it again for its ETag.'))
    reply.removeHeader('etag').code(refused.status).type(`${PROBLEM_MEDIA_TYPE}; charset=utf-8`)
    return JSON.stringify(refused.body)
  }
  if (outcome === undefined) return payload
  // Headers a cache would update stay (ETag, Vary, ...); what described the body goes.
  reply.removeHeader('content-type')
  reply.removeHeader('content-range')
  reply.code(304)
  // No body, and no Content-Length unless it is the 200's: Fastify's HEAD handler measures the
  // payload it is given, so HEAD keeps it; for GET, null sends none.
  if (request.method === 'HEAD') return payload
  discard(payload)
  return null
}

/** Whether an answer has a validator, and so preconditions: a 200 or a 206 to a GET or a HEAD. */
function validated (request: FastifyRequest, reply: FastifyReply): boolean {
  return (reply.statusCode === 200 || reply.statusCode === 206) && SAFE_METHODS.has(request.method)
}

/** A body's hash: SHA-1 of its bytes (a string as UTF-8), in base64, in one call rather than a Hash object per body. */
function sha1 (payload: string | Buffer): string {
  return hash('sha1', payload, 'base64')
}

export default fp(etag, { name: 'etag', dependencies: ['audience'] })

const SAFE_METHODS = new Set(['GET', 'HEAD'])

/** A body that will not be sent: a stream is closed, so the rows it reads are released. */
function discard (payload: unknown): void {
  if (payload instanceof Readable) payload.destroy()
}
