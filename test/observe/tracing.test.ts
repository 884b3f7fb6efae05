// Traces, end to end: tracing started from OTEL_* variables exports over OTLP/HTTP (JSON) to a
// receiver in this process (127.0.0.1), and one request's spans form one tree: the caller's
// traceparent, the request, the slice and projection, the upstream call, and the upstream itself
// is told the trace (traceparent) and the request's id (X-Request-Id).
import t from 'tap'
import { startOtlpReceiver, type OtlpSpan } from '../helpers/otlp.js'
import { startDemoUpstream } from '../../demo/upstream.js'
import { serviceName, startTracing, tracingRequested } from '../../src/observe/tracing.js'
import { AUTH, buildApp } from '../helpers/app.js'

t.test('which OTEL_* settings turn tracing on', async (t) => {
  t.notOk(tracingRequested({}), 'nothing set: off')
  t.ok(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), 'an endpoint: on')
  t.ok(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), 'a traces endpoint: on')
  t.ok(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' }), 'the otlp exporter named: on (its default endpoint)')
  t.notOk(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), 'none: off')
  t.notOk(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' }), 'an exporter not served: off')
  t.notOk(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }), 'the SDK disabled: off')
  t.equal(await startTracing({}, '0.0.0'), undefined, 'not requested: nothing registered')
  t.equal(serviceName({}), 'audience-gateway')
  t.equal(serviceName({ OTEL_SERVICE_NAME: 'catalogue' }), 'catalogue')
})

t.test('a request\'s spans reach an OTLP receiver as one tree, and the upstream is told the trace and the request id', async (t) => {
  const receiver = await startOtlpReceiver()
  t.teardown(receiver.close)
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json'
  const tracing = (await startTracing(process.env, '0.0.0'))!
  t.teardown(tracing.shutdown)

  const upstream = await startDemoUpstream({ port: 0 })
  t.teardown(upstream.close)
  const { app } = await buildApp(t, { upstreamUrl: upstream.url, tracing: true })
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const callerSpan = '00f067aa0ba902b7'
  const res = await app.inject({ url: '/products?limit=2', headers: { 'x-audience': 'agent', traceparent: `00-${traceId}-${callerSpan}-01`, 'x-request-id': 'trace-me-1' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-request-id'], 'trace-me-1')

  // An unrouted request, a tool call (its span names the tool) and an upstream gone (a 502: an error span).
  t.equal((await app.inject({ url: '/nowhere', headers: { traceparent: `00-${traceId}-${callerSpan}-01` } })).statusCode, 404)
  const tool = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { traceparent: `00-${traceId}-${callerSpan}-01`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getProduct', arguments: { sku: 'SKU-00001' } } })
  })
  t.equal(tool.statusCode, 200)
  // An action: its span, and the upstream call under it.
  const reserved = await app.inject({ method: 'POST', url: '/products/SKU-00002/reservations', payload: { quantity: 1 }, headers: { ...AUTH, traceparent: `00-${traceId}-${callerSpan}-01` } })
  t.equal(reserved.statusCode, 201)
  await upstream.close()
  t.equal((await app.inject({ url: '/products/SKU-00002', headers: { traceparent: `00-${traceId}-${callerSpan}-01` } })).statusCode, 502)

  const exported = receiver.nextExport()
  await tracing.flush()
  await exported
  const spans = receiver.spans.filter((span) => span.traceId === traceId)
  const named = (name: string | RegExp): OtlpSpan => {
    const found = spans.find((span) => typeof name === 'string' ? span.name === name : name.test(span.name))
    if (found === undefined) throw new Error(`no span ${String(name)} among ${spans.map((span) => span.name).join(', ')}`)
    return found
  }
  const request = named('GET /products')
  t.equal(request.parentSpanId, callerSpan, 'the request\'s span is a child of the caller\'s')
  t.equal(request.kind, 2, 'a server span')
  const slice = named('slice')
  t.equal(slice.parentSpanId, request.spanId, 'the slice under the request')
  t.equal(named('projection').parentSpanId, request.spanId, 'the projection under the request')
  const call = named(/^GET http:\/\/127\.0\.0\.1:/)
  t.equal(call.parentSpanId, slice.spanId, 'the upstream call under the slice')
  t.equal(call.kind, 3, 'a client span')

  const acting = named('action')
  t.equal(acting.parentSpanId, named('POST /products/:sku/reservations').spanId, 'the action under its request')
  t.equal(named(/^POST http:\/\/127\.0\.0\.1:/).parentSpanId, acting.spanId, 'the upstream call under the action')
  t.ok(spans.some((span) => span.name === 'GET unrouted'), 'an unrouted request has a span too')
  const failed = spans.find((span) => span.name === 'GET /products/:sku') as OtlpSpan & { status?: { code?: number } }
  t.equal(failed.status?.code, 2, 'a 5xx marks the request\'s span as an error')
  const tooled = spans.find((span) => span.name === 'POST /mcp') as OtlpSpan & { attributes: Array<{ key: string, value: { stringValue?: string } }> }
  t.equal(tooled.attributes.find((attribute) => attribute.key === 'gateway.operation')?.value.stringValue, 'getProduct')
  const told = upstream.requests.recent.find((seen) => seen.path.startsWith('/page/products'))
  t.ok(told, 'the upstream was called')
  t.equal(told?.headers['x-request-id'], 'trace-me-1', 'the upstream is sent the request id')
  t.equal(told?.headers.traceparent, `00-${traceId}-${call.spanId}-01`, 'and the trace, its parent the call\'s span')
})
