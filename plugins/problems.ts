// One error handler and one not-found handler: every failure leaves as application/problem+json
// (RFC 9457). A 5xx is logged with its cause and says nothing internal; a 4xx says what to fix.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { PROBLEM_MEDIA_TYPE } from '../src/audience.js'
import { isProblemCode, NO_ROUTE, problem } from '../src/core/errors.js'
import { problemOf } from '../src/core/problem.js'
import { pathOf, pathPattern } from '../src/http/url-path.js'
import { announcesBody, closeOnceAnswered } from './well-formed.js'

async function problems (app: FastifyInstance): Promise<void> {
  const paths = servedPaths(app)
  app.setErrorHandler(sendProblem)
  /**
   * A path no route serves (404), a method a served path is not served with (405), and what a route
   * that serves the method did not find, such as a static file that is not there (404).
   */
  function unserved (request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const methods = paths.methodsOf(pathOf(request.url))
    if (methods.length === 0 || methods.includes(request.method)) return sendProblem(problem('AG_NOT_FOUND', NO_ROUTE), request, reply)
    const allow = [...methods, 'OPTIONS'].join(', ')
    if (request.method === 'OPTIONS') return reply.code(204).header('allow', allow).send()
    const refused = Object.assign(problem('AG_METHOD_NOT_ALLOWED', `This path is served with ${allow} only.`), { headers: { allow } })
    return sendProblem(refused, request, reply)
  }
  app.setNotFoundHandler(unserved)
  // A request no route takes is answered before its body is read, which Fastify would otherwise wait
  // for (a POST to a read-only path, trickling its body, held a socket): a body announced is never
  // read, and its connection is closed once the answer is sent.
  app.addHook('preParsing', function refuseUnserved (request, reply, payload, done) {
    if (!request.is404) {
      done(null, payload)
      return
    }
    if (announcesBody(request)) closeOnceAnswered(request, reply)
    unserved(request, reply)
  })
}

/** Which methods each registered path is served with, matched against a request's path. */
function servedPaths (app: FastifyInstance): { methodsOf: (path: string) => string[] } {
  const routes = new Map<string, { pattern: RegExp, methods: Set<string> }>()
  app.addHook('onRoute', function rememberRoute (route) {
    // A catch-all (the CORS preflight's `OPTIONS *`) says nothing about which paths exist.
    if (route.url === '*') return
    const served = routes.get(route.url) ?? { pattern: pathPattern(route.url), methods: new Set<string>() }
    for (const method of [route.method].flat()) served.methods.add(method)
    routes.set(route.url, served)
  })
  return {
    methodsOf: (path) => {
      const methods = new Set<string>()
      for (const { pattern, methods: served } of routes.values()) if (pattern.test(path)) for (const method of served) methods.add(method)
      return [...methods].sort()
    }
  }
}

export default fp(problems, { name: 'problems' })

/** Sends what `error` is as a problem, logged by its kind. */
export function sendProblem (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status, body, headers } = problemOf(error)
  // The request's id, as its log lines and its X-Request-Id carry it: what a client quotes to an operator.
  body.request_id = request.id
  request.problemType = body.type
  // A 5xx the gateway chose (shutting down, overloaded) is a state, not a fault: no stack to read.
  if (status >= 500 && isProblemCode((error as { code?: unknown }).code)) request.log.warn({ status, type: body.type, detail: body.detail }, 'request refused')
  else if (status >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.info({ status, type: body.type }, 'request rejected')
  return reply.code(status).headers(headers).type(PROBLEM_MEDIA_TYPE).send(body)
}
