// An OTLP/HTTP (JSON) receiver on 127.0.0.1, in the test's own process: every span exported to it,
// as received, and a call told of each export.
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
}

export interface OtlpReceiver {
  /** The endpoint to name in OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string
  /** Every span received so far. */
  readonly spans: OtlpSpan[]
  /** Resolves once the next export has been received. */
  readonly nextExport: () => Promise<void>
  readonly close: () => void
}

export async function startOtlpReceiver (): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = []
  const exported: Array<() => void> = []
  const receiver = createServer((request: IncomingMessage, response) => {
    let text = ''
    request.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => {
      const body = JSON.parse(text) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans)
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      for (const resolve of exported.splice(0)) resolve()
    })
  })
  receiver.listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  return {
    endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    spans,
    nextExport: async () => { await new Promise<void>((resolve) => { exported.push(resolve) }) },
    close: () => { receiver.close() }
  }
}
