// The HTTP transport of an action: a Fastify route with a JSON body. It only translates, as
// route.ts does for reads: the request into an ActionCall (audience, path parameters, the parsed
// body, the Idempotency-Key), the body's refusals by the parser into the registry's problems (a
// body too large, not JSON), and what the core acted into a reply in the audience's media type.
import type { FastifyError, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import Type from 'typebox'
import { AUDIENCE_HEADER, JSON_VARIANTS } from '../audience.js'
import type { ActionResource } from '../core/action.js'
import { NOT_AN_OBJECT } from '../core/body.js'
import { invalidArguments, NO_ROUTE, problem } from '../core/errors.js'
import { IDEMPOTENCY_HEADER, KEPT_SECONDS, keySchema } from '../core/idempotency.js'
import type { CompileResponseSerializer } from '../core/serializer.js'
import { callerOf } from './caller.js'
import { problemResponses, resultResponse } from './responses.js'

function acceptAsSent (): boolean {
  return true
}

/** The request headers an action reads, as the document shows them; validation takes every request as sent. */
const ACTION_HEADERS = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(Type.Unsafe<string>(keySchema(
    `Makes the call safe to retry: a call with the key of an earlier one (by the same caller, to the same action) within ${KEPT_SECONDS / 3600} hours is answered that call's result without acting again (\`Idempotent-Replayed: true\`); with other arguments, a 422; while the first is in progress, a 409. Without a key, a retry acts again.`
  )))
})

/** A body's media type: JSON, with or without a charset. */
const JSON_TYPE = /^application\/json\s*(?:;|$)/i

export function actionRouteOf (action: ActionResource, serializers: CompileResponseSerializer): RouteOptions {
  // The requests that reached the flow, which audits them; any other is refused before it and audited here.
  const reached = new WeakSet<FastifyRequest>()
  return {
    method: action.method,
    url: action.url,
    bodyLimit: action.maxBodyBytes,
    // A browser on an allowed origin may call it: its method, its body and its key, and read whether it was replayed.
    config: { variants: JSON_VARIANTS, permissions: action.permissions, cors: { methods: [action.method], allowedHeaders: ['Authorization', AUDIENCE_HEADER, 'Content-Type', IDEMPOTENCY_HEADER], exposedHeaders: ['Idempotent-Replayed'] } },
    // The core checks the body and the path parameters (closed, nothing coerced) and names every wrong one.
    validatorCompiler: () => acceptAsSent,
    serializerCompiler: serializers,
    schema: {
      operationId: action.name,
      summary: action.summary,
      description: action.description,
      tags: action.tags === undefined ? undefined : [...action.tags],
      ...(action.params === undefined ? {} : { params: action.params }),
      headers: ACTION_HEADERS,
      body: action.body,
      response: {
        [action.status]: resultResponse(action.bodies, action.status === 201 ? 'Done: what it created.' : 'Done: the record as it is now.'),
        ...problemResponses(action.problems, action.params !== undefined, [], false)
      }
    },
    // Before the body is read: one that is not JSON is refused unread.
    preParsing: function refuseOtherMedia (request, _reply, payload, done) {
      const type = request.headers['content-type']
      if (type !== undefined && !JSON_TYPE.test(type)) {
        done(problem('AG_UNSUPPORTED_MEDIA_TYPE', 'The body must be JSON: send it with Content-Type: application/json.'))
        return
      }
      done(null, payload)
    },
    // The parser's refusals, as the registry's problems; the gateway's handler sends them. A call
    // refused before the flow (its credentials, its rate, its body) is audited and counted here.
    errorHandler: function refuseCall (error: FastifyError, request: FastifyRequest) {
      const refusal = translated(error, action.maxBodyBytes)
      if (!reached.has(request)) action.refused({ principal: request.principal, audit: request.log }, refusal)
      throw refusal
    },
    handler: async function actRequest (request: FastifyRequest, reply: FastifyReply) {
      const params = request.params as Record<string, unknown>
      if (Object.values(params).includes('')) throw problem('AG_NOT_FOUND', NO_ROUTE)
      const key = request.headers['idempotency-key']
      reached.add(request)
      const acted = await action.act({
        audience: request.audience,
        params,
        body: request.body,
        // Sent twice, Node joins the two with a comma and a space: no key has a space.
        idempotencyKey: key,
        principal: request.principal,
        requestId: request.id,
        log: request.log,
        audit: request.log,
        client: callerOf(request)
      })
      reply.code(acted.status).type(`${JSON_VARIANTS[request.audience]}; charset=utf-8`)
      if (acted.replayed) reply.header('idempotent-replayed', 'true')
      return acted.body
    }
  }
}

/** Fastify's body refusals, as the registry names them; anything else as it is. */
function translated (error: FastifyError, maxBodyBytes: number): Error {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem('AG_BODY_TOO_LARGE', `The body is larger than this action takes (${maxBodyBytes} bytes).`)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem('AG_UNSUPPORTED_MEDIA_TYPE', 'The body must be JSON: send it with Content-Type: application/json.')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem('AG_MALFORMED_REQUEST', 'The body is not as long as its Content-Length says.')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidArguments({ body: ['Empty: send {} for a call without fields, or no Content-Type with no body.'] })
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      // The parser refuses malformed JSON and the keys that would reach a prototype alike.
      return invalidArguments({ body: [`Not JSON, or holding a key that could reach a prototype (__proto__, constructor.prototype): ${NOT_AN_OBJECT}`] })
    default:
      return error
  }
}
