// Prometheus metrics at `/metrics`, for a key with the `metrics` scope (docs/observability.md): every
// answer counted by operation (the route's operationId, the MCP tool's name), audience (plain, agent,
// mcp) and status class, timed and measured; refusals by the problem registry's code. The core's own
// figures (rows, the count cache, upstream calls, the store's readers) come through the observers
// `app.metrics` hands the store, the upstream clients and the routes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Registry } from 'prom-client'
import fp from 'fastify-plugin'
import { PROBLEM_KINDS, problemType } from '../src/core/errors.js'
import { gatewayMetrics, type GatewayMetrics } from '../src/observe/metrics.js'
import { scope } from '../src/permissions.js'
import { routeConfig } from './audience.js'
import { MCP_PATH } from './mcp.js'

declare module 'fastify' {
  interface FastifyInstance {
    readonly metrics: GatewayMetrics
  }
  interface FastifyRequest {
    /** What was called, for a route that serves several (MCP: the tool's name). */
    operation: string | undefined
    /** The `type` of the problem answered, if one was. */
    problemType: string | undefined
    /** The socket's bytes written when the request arrived. */
    bytesBefore: number
  }
}

export const METRICS_PATH = '/metrics'

/** The scope a key needs to read `/metrics`. */
export const METRICS_SCOPE = 'metrics'

/** Each registry code by its `type` URN: refusals are counted by code. */
const CODES: ReadonlyMap<string, string> = new Map(Object.keys(PROBLEM_KINDS).map((code) => [problemType(code as keyof typeof PROBLEM_KINDS), code]))

export interface MetricsOptions {
  /** The process's own metrics (`processMetrics()`), when the process serves several apps in turn; default: this app's own. */
  readonly process?: Registry
}

async function metrics (app: FastifyInstance, options: MetricsOptions): Promise<void> {
  const recorded = gatewayMetrics(() => app.store.readers(), options.process)
  app.decorate('metrics', recorded)
  app.decorateRequest('operation', undefined)
  app.decorateRequest('problemType', undefined)
  app.decorateRequest('bytesBefore', 0)

  app.addHook('onRequest', function markBytes (request: FastifyRequest, _reply: FastifyReply, done: () => void) {
    request.bytesBefore = request.raw.socket?.bytesWritten ?? 0
    done()
  })
  // What each route is counted as, worked out on its first answer: Fastify builds `routeOptions`
  // afresh on every read, and a route's config is one object for its whole life.
  const routes = new WeakMap<object, CountedAs>()
  app.addHook('onResponse', function countAnswer (request: FastifyRequest, reply: FastifyReply, done: () => void) {
    const config = routeConfig(request)
    let route = routes.get(config)
    if (route === undefined) {
      route = countedAs(request.routeOptions)
      routes.set(config, route)
    }
    const operation = request.operation ?? route.operation
    const audience = route.audience ?? request.audience
    const written = (request.raw.socket?.bytesWritten ?? 0) - request.bytesBefore
    recorded.request(operation, audience, reply.statusCode, reply.elapsedTime / 1000, Math.max(written, 0))
    if (request.problemType !== undefined) recorded.refusal(operation, CODES.get(request.problemType) ?? 'other')
    done()
  })

  app.get(METRICS_PATH, {
    // Scraped while the process sheds load or is rate limited: that is when an operator looks.
    config: { permissions: [scope(METRICS_SCOPE)], shed: false, rateLimit: false },
    schema: { hide: true }
  }, async (_request, reply) => {
    reply.type(recorded.registry.contentType)
    return await recorded.registry.metrics()
  })
}

export default fp(metrics, { name: 'metrics', dependencies: ['auth', 'store'] })

/** A route's operation (its operationId, or what kind of request it is: a bounded set) and audience (none when it has no variants). */
interface CountedAs {
  readonly operation: string
  /** `mcp`, `none`, or undefined: the request's own audience. */
  readonly audience: string | undefined
}

/** The MCP tool called names its request's operation itself (request.operation); every other request is its route's. */
function countedAs ({ schema, url, config }: FastifyRequest['routeOptions']): CountedAs {
  return {
    operation: (schema as { operationId?: string } | undefined)?.operationId ?? (url === undefined ? 'unrouted' : url === METRICS_PATH ? 'metrics' : 'other'),
    audience: url === MCP_PATH ? 'mcp' : config.variants === undefined ? 'none' : undefined
  }
}
