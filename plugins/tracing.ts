// A span per request, when tracing is on (src/observe/tracing.ts): started as the request arrives,
// a child of the caller's `traceparent` when it sends one, made the active span for everything the
// request runs (the core's count, slice, stream and projection spans, each upstream call), ended
// with the answer. Off, this plugin adds no hook at all.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { pathOf } from '../src/http/url-path.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span, while tracing is on. */
    span: Span | undefined
  }
}

export interface TracingOptions {
  /** True once a tracer provider is registered (src/observe/tracing.ts). */
  enabled: boolean
}

async function tracing (app: FastifyInstance, options: TracingOptions): Promise<void> {
  if (!options.enabled) return
  const tracer = trace.getTracer('audience-gateway')
  app.decorateRequest('span', undefined)
  app.addHook('onRequest', function startSpan (request: FastifyRequest, _reply: FastifyReply, done: () => void) {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers)
    const route = request.routeOptions.url
    const span = tracer.startSpan(`${request.method} ${route ?? 'unrouted'}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, 'http.route': route, 'url.path': pathOf(request.url), 'gateway.request_id': request.id }
    }, parent)
    request.span = span
    // Everything after this hook runs inside the span's context: ALS carries it through the promises.
    context.with(trace.setSpan(parent, span), done)
  })
  app.addHook('onResponse', function endSpan (request: FastifyRequest, reply: FastifyReply, done: () => void) {
    const span = request.span as Span
    span.setAttribute('http.response.status_code', reply.statusCode)
    if (request.operation !== undefined) span.setAttribute('gateway.operation', request.operation)
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    span.end()
    done()
  })
}

export default fp(tracing, { name: 'tracing' })
