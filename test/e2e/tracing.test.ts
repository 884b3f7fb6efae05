// The real process with OTEL_* set: its requests are traced, and the spans still queued when it
// is told to stop are exported before it exits, to an OTLP receiver in this process (127.0.0.1).
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { startServer } from '../helpers/server.js'

// Starting the server through the TypeScript loader takes seconds on a busy machine: this bounds a hang.
t.setTimeout(240_000)

interface OtlpSpan { traceId: string, parentSpanId?: string, name: string }

t.test('with OTEL_* set, a request\'s span is exported by the time the process exits on SIGTERM', async (t) => {
  const received: OtlpSpan[] = []
  const receiver = createServer((request: IncomingMessage, response) => {
    let text = ''
    request.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => {
      const body = JSON.parse(text) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans)
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  receiver.listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  t.teardown(() => { receiver.close() })

  const server = await startServer({
    API_KEYS: 'trace-key-0123456789abcdef',
    DATABASE_URL: join(t.testdir(), 'demo.sqlite'),
    SHUTDOWN_DRAIN_SECONDS: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json'
  })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const res = await fetch(`${server.url}/ledger?limit=2`, { headers: { 'x-audience': 'agent', traceparent: `00-${traceId}-00f067aa0ba902b7-01` } })
  t.equal(res.status, 200)
  await res.arrayBuffer()

  // The batch processor holds the spans for seconds: only the shutdown sends them this soon.
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  const traced = received.filter((span) => span.traceId === traceId)
  t.ok(traced.some((span) => span.parentSpanId === '00f067aa0ba902b7'), 'the request\'s span, a child of the caller\'s')
  t.ok(traced.some((span) => span.name === 'slice'), 'and the core\'s spans under it')
})
