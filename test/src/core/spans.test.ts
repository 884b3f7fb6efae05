// The core's spans: with no tracer provider registered the work is called bare (no span, no
// context made for it), and once one is registered each call records its span, from the next call on.
import t from 'tap'
import { context, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { inSpan, inSpanSync } from '../../../src/core/spans.js'

t.test('no provider: the work is called bare, its result and its failure as they are', async (t) => {
  t.equal(await inSpan('count', async () => trace.getActiveSpan()), undefined, 'no span is made active')
  t.equal(inSpanSync('projection', () => trace.getActiveSpan()), undefined)
  t.equal(await inSpan('slice', async () => 7), 7)
  await t.rejects(inSpan('slice', async () => { throw new Error('gone') }), { message: 'gone' })
  t.throws(() => inSpanSync('projection', () => { throw new Error('bad row') }), { message: 'bad row' })
})

t.test('a provider registered: each call records its span, failures marked', async (t) => {
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  provider.register()
  t.teardown(async () => {
    await provider.shutdown()
    trace.disable()
    context.disable()
  })
  t.equal(await inSpan('slice', async () => trace.getActiveSpan()?.isRecording()), true, 'the work runs inside a recording span')
  t.equal(inSpanSync('projection', () => 3), 3)
  await t.rejects(inSpan('count', async () => { throw new Error('locked') }), { message: 'locked' })
  const spans = exporter.getFinishedSpans()
  t.same(spans.map((span) => span.name), ['slice', 'projection', 'count'])
  t.same(spans.map((span) => span.status.code), [0, 0, 2], 'only the failure is an error')
  t.equal(spans[2].status.message, 'locked')
})

t.test('disabled again: bare once more', async (t) => {
  t.equal(await inSpan('count', async () => trace.getActiveSpan()), undefined)
})
