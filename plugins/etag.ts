// Conditional GETs: a buffered 200 gets a strong ETag naming its bytes and its audience, and an
// If-None-Match naming it is answered 304. A streamed plain list gets none: its bytes are not known
// before they are sent, and a validator not computed from them could claim "unchanged" wrongly.
import fastifyEtag from '@fastify/etag'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

async function etag (app: FastifyInstance): Promise<void> {
  // @fastify/etag hashes buffered bodies (strings and buffers, never streams). The 304 is decided
  // below: it would compare If-None-Match as one string, and for any status, errors included.
  await app.register(fastifyEtag, { replyWith304: false })

  app.addHook('onSend', async function answerConditional (request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const hashed = reply.getHeader('etag')
    if (typeof hashed !== 'string') return payload
    // Preconditions apply to successful answers only (RFC 9110 §13.2.1); a problem has no validator.
    if (reply.statusCode !== 200) {
      reply.removeHeader('etag')
      return payload
    }
    const tag = request.routeOptions.config.variants === undefined ? hashed : withAudience(hashed, request.audience)
    reply.header('etag', tag)
    if (!SAFE_METHODS.has(request.method) || !noneMatch(request.headers['if-none-match'], tag)) return payload
    // Headers a cache would update stay (ETag, Vary, ...); what described the body goes.
    reply.removeHeader('content-type')
    reply.code(304)
    // No body, and no Content-Length unless it is the 200's: Fastify's HEAD handler measures the
    // payload it is given, so HEAD keeps it; for GET, null sends none.
    return request.method === 'HEAD' ? payload : null
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

/** True when If-None-Match names the current tag (weak comparison) or is `*`. */
function noneMatch (header: string | undefined, tag: string): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  return Array.from(header.matchAll(ENTITY_TAG), (match) => opaque(match[0])).includes(opaque(tag))
}

function opaque (tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag
}
