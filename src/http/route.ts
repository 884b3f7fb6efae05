// The HTTP transport: a resource as a Fastify route. It only translates: the request into a Call
// (audience, validated query and path parameters), and what the core serves into a reply whose
// media type names the variant served. The flow itself is the core's (src/core/serve.ts).
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import Type from 'typebox'
import { NO_ROUTE, problem } from '../core/errors.js'
import type { Resource } from '../core/resource.js'
import type { CompileResponseSerializer } from '../core/serializer.js'
import { AGENT_MEDIA_TYPE, JSON_VARIANTS, TEXT_VARIANTS } from '../audience.js'
import { anyMatches, weakly, withAudience } from './conditional.js'
import { bytesAnswer } from './ranges.js'
import { bodyResponse, partialResponse, problemResponses } from './responses.js'
import { callerOf } from './caller.js'
import { cutWhenStalled, type StallBounds } from './stalled.js'

/** What the log says of a list cut for its client not reading: while nobody, or somebody, waited for a reader. */
const CUT = 'cut a streamed list whose client stopped reading'
const CUT_WHILE_CONTENDED = `${CUT} while another request waited for a reader`

function acceptAsSent (): boolean {
  return true
}

const DESCRIPTIONS = { list: 'The list.', retrieve: 'The record.', text: 'The text.', bytes: 'The whole content, in its own media type, or for an agent a window of it.' } as const

/**
 * The request headers a byte resource reads, as the document shows them (read by src/http/ranges.ts),
 * capitalised like every other header there: a generated client names its parameters after them.
 * Only the document reads these names; validation takes every request as sent.
 */
const RANGE_HEADERS = Type.Object({
  Range: Type.Optional(Type.String({ description: 'Plain clients: one range of bytes, `bytes=<first>-<last>`, `bytes=<first>-` or `bytes=-<count>`. Several ranges, or a malformed header, get the whole content.' })),
  'If-Range': Type.Optional(Type.String({ description: 'The ETag the client holds: the range is sent only while it is current, the whole content otherwise.' }))
})

export interface RouteSettings {
  /** How long a streamed list may wait on a client that does not read before it is cut. */
  readonly stallMs: number
  /** How long it may wait while a request waits for a reader (`waiting`); absent, `stallMs` alone bounds it. */
  readonly contended?: StallBounds['contended']
  /** Told the rows each call served (and whether its window was clamped), by operation and audience: metrics. */
  readonly onRows: (operation: string, audience: string, rows: number, clamped: boolean) => void
  /** True when tokens are taken: a route asking for credentials may answer that a token's issuer is out of reach. */
  readonly takesTokens?: boolean
  /** Compiles the serializer of each of its answers (the app's own: src/core/serializer.ts). */
  readonly serializers: CompileResponseSerializer
}

export function routeOf (resource: Resource, settings: RouteSettings): RouteOptions {
  const variants = resource.kind === 'text' ? TEXT_VARIANTS : resource.mediaType === undefined ? JSON_VARIANTS : { plain: resource.mediaType, agent: AGENT_MEDIA_TYPE }
  const bytes = resource.kind === 'bytes'
  return {
    method: 'GET',
    url: resource.url,
    config: { variants, permissions: resource.permissions },
    // The core checks every argument (closed set, canonical integers, no repeats, paging for
    // agents only) and names every wrong one at once; the schemas here are what the document shows.
    validatorCompiler: () => acceptAsSent,
    serializerCompiler: settings.serializers,
    schema: {
      operationId: resource.name,
      summary: resource.summary,
      description: resource.description,
      tags: resource.tags === undefined ? undefined : [...resource.tags],
      ...(resource.params === undefined ? {} : { params: resource.params }),
      querystring: resource.query,
      ...(bytes ? { headers: RANGE_HEADERS } : {}),
      response: {
        200: bodyResponse(variants, resource.bodies, DESCRIPTIONS[resource.kind], bytes ? ['Accept-Ranges', 'Content-Length'] : []),
        ...(bytes ? { 206: partialResponse(variants.plain, resource.bodies.plain) } : {}),
        // HTTP's own refusals: If-Match naming nothing current, a body on a GET (a range past the end).
        ...problemResponses([...resource.problems, ...(settings.takesTokens === true && resource.problems.includes('AG_UNAUTHORIZED') ? ['AG_ISSUER_UNAVAILABLE'] as const : []), 'AG_PRECONDITION_FAILED', 'AG_BODY_NOT_ALLOWED', ...(bytes ? ['AG_RANGE_NOT_SATISFIABLE'] as const : [])], resource.params !== undefined, bytes ? ['Accept-Ranges'] : [])
      }
    },
    handler: async function serveRequest (request: FastifyRequest, reply: FastifyReply) {
      const params = request.params as Record<string, unknown>
      // `/books/` matches `/books/:id` with an empty id: no such route, rather than a bad id.
      if (resource.params !== undefined && Object.values(params).includes('')) throw problem('AG_NOT_FOUND', NO_ROUTE)
      const { audience } = request
      const { onRows } = settings
      const served = await resource.serve({
        audience,
        query: request.query as Record<string, unknown>,
        params,
        holds: (tag) => holds(request, tag),
        requestId: request.id,
        log: request.log,
        client: callerOf(request),
        principal: request.principal,
        onRows: (rows, clamped) => { onRows(resource.name, audience, rows, clamped) }
      })
      if (served.kind === 'bytes') {
        // A strong validator naming the bytes; the ETag plugin adds the audience, as If-Range compares it.
        reply.type(served.mediaType).header('etag', `"${served.body.tag}"`)
        return await bytesAnswer(request, reply, served.body, withAudience(`"${served.body.tag}"`, audience))
      }
      reply.type(`${variants[audience]}; charset=utf-8`)
      // A plain list's validator; the ETag plugin tags it with the audience and answers 304 by it.
      if ((served.kind === 'json-array' || served.kind === 'unchanged') && served.tag !== undefined) reply.header('etag', plainTag(served.tag))
      // The ETag plugin answers it 304, If-None-Match naming its tag; nothing was read.
      if (served.kind === 'unchanged') return ''
      // A list kept whole (src/core/served-cache.ts) is sent as its bytes; one read from the source, streamed.
      if (served.kind === 'json-array' && !Buffer.isBuffer(served.body)) {
        cutWhenStalled(reply.raw, { ms: settings.stallMs, contended: settings.contended }, (stallMs, whileContended) => {
          request.log.warn({ stallMs }, whileContended ? CUT_WHILE_CONTENDED : CUT)
        })
      }
      return served.body
    }
  }
}

/**
 * A plain list's ETag: weak, since it names the data and the statement that read it, not the bytes
 * (which a new version of the gateway could write otherwise for the same rows).
 */
function plainTag (tag: string): string {
  return `W/"${tag}"`
}

/** True when If-None-Match names the plain list's tag as the ETag plugin will send it (or is `*`). */
function holds (request: FastifyRequest, tag: string): boolean {
  return anyMatches(request.headers['if-none-match'], withAudience(plainTag(tag), request.audience), weakly)
}
