// Prometheus metrics at `/metrics`, for a key with the `metrics` scope (docs/observability.md): every
// answer counted by operation (the route's operationId, the MCP tool's name), audience (plain, agent,
// mcp) and status class, timed and measured; refusals by the problem registry's code. The core's own
// figures (rows, the count cache, upstream calls, the store's readers) come through the observers
// `app.metrics` hands the store, the upstream clients and the routes.
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
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
  /** Each route's operation, by its config (one object a route, the unrouted requests' included): read from its schema once. */
  const operations = new WeakMap<RouteConfig, string>()

  app.addHook('onRequest', function markBytes (request: FastifyRequest, _reply: FastifyReply, done: () => void) {
    request.bytesBefore = request.raw.socket?.bytesWritten ?? 0
    done()
  })
  app.addHook('onResponse', function countAnswer (request: FastifyRequest, reply: FastifyReply, done: () => void) {
    // The config every hook reads (routeConfig), not `routeOptions`, which Fastify builds afresh on every read.
    const config: RouteConfig = routeConfig(request)
    const operation = request.operation ?? routeOperation(request, config, operations)
    const audience = audienceOf(request, config)
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

export default fp(metrics, { name: 'metrics', dependencies: ['audience', 'auth', 'store'] })

/** A route's config as Fastify keeps it: its own, and the path it was declared with (none for a request no route matched). */
type RouteConfig = FastifyContextConfig & { readonly url?: string }

/** The route's operationId, or what kind of request it was: a bounded set, kept in `operations` by the route's config. */
function routeOperation (request: FastifyRequest, config: RouteConfig, operations: WeakMap<RouteConfig, string>): string {
  let operation = operations.get(config)
  if (operation === undefined) {
    const { schema, url } = request.routeOptions
    operation = (schema as { operationId?: string } | undefined)?.operationId ?? (url === undefined ? 'unrouted' : url === METRICS_PATH ? 'metrics' : 'other')
    operations.set(config, operation)
  }
  return operation
}

function audienceOf (request: FastifyRequest, config: RouteConfig): string {
  if (config.url === MCP_PATH) return 'mcp'
  return config.variants === undefined ? 'none' : request.audience
}
