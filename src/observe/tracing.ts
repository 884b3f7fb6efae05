// Traces, exported over OTLP (HTTP, JSON) when the standard OTEL_* variables ask for them, and not
// set up at all otherwise: then OpenTelemetry's API stays its no-op self and no span is recorded.
// Registering the provider also installs the W3C Trace Context propagator (`traceparent` read from a
// request, written to each upstream call) and the AsyncLocalStorage context manager that carries the
// active span from the request's hooks into the core's spans and the upstream client's. The SDK and
// the exporter (a few hundred modules) are loaded only then: a process without OTEL_* never loads them.

export interface Tracing {
  /** Sends the spans not yet exported. */
  readonly flush: () => Promise<void>
  /** Sends what is left, then stops: on shutdown. */
  readonly shutdown: () => Promise<void>
}

type Env = Readonly<Record<string, string | undefined>>

/**
 * True when the environment asks for OTLP traces: OTEL_TRACES_EXPORTER names `otlp`, or is unset
 * and an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is given.
 * OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off whatever else is set.
 */
export function tracingRequested (env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim().toLowerCase())
  if (exporters !== undefined) return exporters.includes('otlp')
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

/** OTEL_SERVICE_NAME, else `audience-gateway`. */
export function serviceName (env: Env): string {
  return env.OTEL_SERVICE_NAME ?? 'audience-gateway'
}

/**
 * Registers a tracer provider exporting to the OTLP endpoint the environment names (the exporter
 * reads OTEL_EXPORTER_OTLP_* itself: endpoint, headers, timeout), or does nothing and returns
 * undefined when tracing is not requested. The service is named by OTEL_SERVICE_NAME, else
 * `audience-gateway`.
 */
export async function startTracing (env: Env, version: string): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node')
  ])
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName(env), 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())]
  })
  provider.register()
  return {
    flush: async () => { await provider.forceFlush() },
    shutdown: async () => { await provider.shutdown() }
  }
}
