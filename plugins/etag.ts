// Conditional GETs: a buffered 200 gets a strong ETag naming its bytes and its audience (a streamed
// plain list comes with a weak one from its route, naming its data: src/http/route.ts), an
// If-None-Match naming it (or `*`) is answered 304, and an If-Match naming nothing current 412.
import { hash } from 'node:crypto'
import fastifyEtag from '@fastify/etag'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Readable } from 'node:stream'
import { PROBLEM_MEDIA_TYPE } from '../src/audience.js'
import { problem } from '../src/core/errors.js'
import { problemOf } from '../src/core/problem.js'
import { preconditionOutcome, withAudience } from '../src/http/conditional.js'
import { routeConfig } from './audience.js'

async function etag (app: FastifyInstance): Promise<void> {
  // @fastify/etag hashes buffered bodies (strings and buffers, never streams), with its own
  // algorithm and encoding (SHA-1, base64) in one call rather than a Hash object per body. The 304
  // is decided below: it would compare If-None-Match as one string, and for any status, errors included.
  await app.register(fastifyEtag, { replyWith304: false, hashFn: sha1 })

  // With `done` rather than async: a hook run on every answer, spared a promise and a microtask.
  app.addHook('onSend', function answerConditional (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) {
    done(null, conditional(request, reply, payload))
  })
}

function conditional (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const hashed = reply.getHeader('etag')
  // Preconditions apply to successful answers only (RFC 9110 §13.2.1); a problem has no validator.
  // A 206 (a byte resource's range) keeps its content's: If-None-Match and If-Match apply before Range.
  if (reply.statusCode !== 200 && reply.statusCode !== 206) {
    reply.removeHeader('etag')
    return payload
  }
  // A streamed plain list has no tag: only `*` (the resource exists) can match it.
  const tag = typeof hashed !== 'string' ? undefined : routeConfig(request).variants === undefined ? hashed : withAudience(hashed, request.audience)
  if (tag !== undefined) reply.header('etag', tag)
  if (!SAFE_METHODS.has(request.method)) return payload
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

/** @fastify/etag's hash of a body: SHA-1 of its bytes (a string as UTF-8), in base64. */
function sha1 (payload: string | Buffer): string {
  return hash('sha1', payload, 'base64')
}

export default fp(etag, { name: 'etag', dependencies: ['audience'] })

const SAFE_METHODS = new Set(['GET', 'HEAD'])

/** A body that will not be sent: a stream is closed, so the rows it reads are released. */
function discard (payload: unknown): void {
  if (payload instanceof Readable) payload.destroy()
}
