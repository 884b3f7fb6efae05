// The real process with OTEL_* set: its requests are traced, and the spans still queued when it
// is told to stop are exported before it exits, to an OTLP receiver in this process (127.0.0.1).
import { join } from 'node:path'
import t from 'tap'
import { startOtlpReceiver } from '../helpers/otlp.js'
import { startServer } from '../helpers/server.js'

// Starting the server through the TypeScript loader takes seconds on a busy machine: this bounds a hang.
t.setTimeout(240_000)

t.test('with OTEL_* set, a request\'s span is exported by the time the process exits on SIGTERM', async (t) => {
  const receiver = await startOtlpReceiver()
  t.teardown(receiver.close)

  const server = await startServer({
    API_KEYS: 'trace-key-0123456789abcdef',
    DATABASE_URL: join(t.testdir(), 'demo.sqlite'),
    SHUTDOWN_DRAIN_SECONDS: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
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
  const traced = receiver.spans.filter((span) => span.traceId === traceId)
  t.ok(traced.some((span) => span.parentSpanId === '00f067aa0ba902b7'), 'the request\'s span, a child of the caller\'s')
  t.ok(traced.some((span) => span.name === 'slice'), 'and the core\'s spans under it')
})
