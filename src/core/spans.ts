// The core's spans (count, slice, stream, projection), through OpenTelemetry's API only. With no
// tracer provider registered (no OTEL_* configuration), the API's tracer is its no-op one: a span
// is a shared non-recording object and nothing is exported, so the flow pays a few calls, no I/O.
import { SpanStatusCode, trace, type Span } from '@opentelemetry/api'

const tracer = trace.getTracer('audience-gateway')

/** `work` inside a span named `name`, ended when it settles; a failure marks the span as one. */
export async function inSpan<T> (name: string, work: () => Promise<T>): Promise<T> {
  return await tracer.startActiveSpan(name, async (span) => await work().then((result) => {
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
