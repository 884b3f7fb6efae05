// The core's spans (count, slice, stream, projection, action), through OpenTelemetry's API only.
// With no tracer provider registered (no OTEL_* configuration: src/observe/tracing.ts registers
// none), a span would be the API's shared non-recording one, made and carried in a context for
// nothing: the work is then called bare. A provider registered later is asked for from the next call.
import { ProxyTracerProvider, SpanStatusCode, trace, type Span } from '@opentelemetry/api'

const tracer = trace.getTracer('audience-gateway')

/** What the API's provider delegates to while no provider is registered: its no-op one. */
const UNREGISTERED = new ProxyTracerProvider().getDelegate()

/** True when a tracer provider is registered, so that a span records something. */
function tracing (): boolean {
  const provider = trace.getTracerProvider()
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== UNREGISTERED
}

/**
 * `work` inside a span named `name`, ended when it settles; a failure marks the span as one. Not
 * async: with no provider the work's own promise is the answer, with no other around it (each
 * costs a request a promise and a turn of the microtask queue).
 */
export function inSpan<T> (name: string, work: () => Promise<T>): Promise<T> {
  if (!tracing()) return work()
  return tracer.startActiveSpan(name, async (span) => await work().then((result) => {
    span.end()
    return result
  }, (error: unknown) => {
    failed(span, error)
    span.end()
    throw error
  }))
}

/** `work`, synchronous, inside a span named `name`. */
export function inSpanSync<T> (name: string, work: () => T): T {
  if (!tracing()) return work()
  return tracer.startActiveSpan(name, (span) => {
    try {
      return work()
    } finally {
      span.end()
    }
  })
}

/** A span the caller ends itself (a stream's, which lasts until the body is written). */
export function startSpan (name: string): Span {
  return tracer.startSpan(name)
}

function failed (span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error).message) })
}
