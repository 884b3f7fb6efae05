// Conditional GETs: a buffered 200 gets a strong ETag naming its bytes and its audience, an
// If-None-Match naming it (or `*`) is answered 304, and an If-Match naming nothing current 412. A streamed plain list gets none: its bytes are not known
// before they are sent, and a validator not computed from them could claim "unchanged" wrongly.
import fastifyEtag from '@fastify/etag'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Readable } from 'node:stream'
import { PROBLEM_MEDIA_TYPE } from '../src/audience.js'
import { problem } from '../src/core/errors.js'
import { problemOf } from '../src/core/problem.js'

async function etag (app: FastifyInstance): Promise<void> {
  // @fastify/etag hashes buffered bodies (strings and buffers, never streams). The 304 is decided
  // below: it would compare If-None-Match as one string, and for any status, errors included.
  await app.register(fastifyEtag, { replyWith304: false })

  app.addHook('onSend', async function answerConditional (request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const hashed = reply.getHeader('etag')
    // Preconditions apply to successful answers only (RFC 9110 §13.2.1); a problem has no validator.
    if (reply.statusCode !== 200) {
      reply.removeHeader('etag')
      return payload
    }
    // A streamed plain list has no tag: only `*` (the resource exists) can match it.
    const tag = typeof hashed !== 'string' ? undefined : request.routeOptions.config.variants === undefined ? hashed : withAudience(hashed, request.audience)
    if (tag !== undefined) reply.header('etag', tag)
    if (!SAFE_METHODS.has(request.method)) return payload
    const ifMatch = request.headers['if-match']
    if (ifMatch !== undefined && !anyMatches(ifMatch, tag, strongly)) {
      discard(payload)
      const refused = problemOf(problem('AG_PRECONDITION_FAILED', 'If-Match names no current representation of this resource: fetch it again for its ETag.'))
      reply.removeHeader('etag').code(refused.status).type(`${PROBLEM_MEDIA_TYPE}; charset=utf-8`)
      return JSON.stringify(refused.body)
    }
    if (!anyMatches(request.headers['if-none-match'], tag, weakly)) return payload
    // Headers a cache would update stay (ETag, Vary, ...); what described the body goes.
    reply.removeHeader('content-type')
    reply.code(304)
    // No body, and no Content-Length unless it is the 200's: Fastify's HEAD handler measures the
    // payload it is given, so HEAD keeps it; for GET, null sends none.
    if (request.method === 'HEAD') return payload
    discard(payload)
    return null
  })
}

export default fp(etag, { name: 'etag', dependencies: ['audience'] })

const SAFE_METHODS = new Set(['GET', 'HEAD'])

/** One entity tag, weak or strong; commas may sit inside the quotes. */
const ENTITY_TAG = /(?:W\/)?"[^"]*"/g

/**
 * `"<hash>"` -> `"<audience>-<hash>"`: one URL's two variants could hash alike (a record with nothing
 * to project) while their Content-Type differs, and a strong ETag must name one representation.
 */
function withAudience (tag: string, audience: string): string {
  return tag.replace('"', `"${audience}-`)
}

/** True when a precondition header is `*` or names the current tag, compared as `same` compares. */
function anyMatches (header: string | undefined, tag: string | undefined, same: (a: string, b: string) => boolean): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  return tag !== undefined && Array.from(header.matchAll(ENTITY_TAG), (match) => match[0]).some((sent) => same(sent, tag))
}

/** If-None-Match compares weakly: `W/"x"` and `"x"` are the same. */
function weakly (a: string, b: string): boolean {
  return opaque(a) === opaque(b)
}

/** If-Match compares strongly: a weak tag matches nothing. */
function strongly (a: string, b: string): boolean {
  return !a.startsWith('W/') && !b.startsWith('W/') && a === b
}

function opaque (tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag
}

/** A body that will not be sent: a stream is closed, so the rows it reads are released. */
function discard (payload: unknown): void {
  if (payload instanceof Readable) payload.destroy()
}
