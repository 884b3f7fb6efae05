// `app.mount(mount)` serves one declaration both ways: compiled once by the core, routed over HTTP,
// with the gateway's zone and handle wording fixed once for every mount.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { MEBIBYTE, RESPONSE_CACHE_DEFAULT_MB } from '../src/config.js'
import { compileMount, type Resource } from '../src/core/resource.js'
import type { ActSettings } from '../src/core/act.js'
import type { IdempotencyStore } from '../src/core/idempotency.js'
import { compileAction, type ActionMount, type ActionResource } from '../src/core/action.js'
import { actionRouteOf } from '../src/http/action-route.js'
import { storeIdempotency } from '../src/store/idempotency.js'
import { redisIdempotency } from '../src/store/redis-idempotency.js'
import { servedCache } from '../src/core/served-cache.js'
import { responseSerializers } from '../src/core/serializer.js'
import { MountError, type Mount, type MountSettings } from '../src/core/mount.js'
import { validators, type Validators } from '../src/core/validators.js'
import { routeOf } from '../src/http/route.js'
import { DEFAULT_CONTENDED_STALL_MS, DEFAULT_STALL_MS } from '../src/http/stalled.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Serves `mount` to plain clients and agents; its source's rows must match its declaration. */
    mount: <Args, Row>(mount: Mount<Args, Row> | ActionMount) => void
    /** Every resource mounted so far, in mount order: what other transports (MCP) serve. */
    readonly resources: readonly Resource[]
    /** Every action mounted so far, in mount order: MCP serves them as tools too. */
    readonly actions: readonly ActionResource[]
    /**
     * The checks this app compiles (arguments, upstream rows): an upstream source given them
     * (`validators: app.validators`) compiles its row check with the app's, and it goes with the app.
     */
    readonly validators: Validators
  }
}

/** The gateway's sentence for a handle whose marking declares no description of its own. */
export const HANDLE_DESCRIPTION = 'An identifier: pass it as it is to other tools that take it, and never read it out to the user.'

export interface MountOptions {
  timeZone: string
  handleDescription?: string
  /** How long a streamed list may wait on a client that does not read before it is cut (default DEFAULT_STALL_MS). */
  stallMs?: number
  /** How long it may wait while a request waits for a reader, as `readersWanted` tells (default DEFAULT_CONTENDED_STALL_MS). */
  contendedStallMs?: number
  /** True while a request waits for a reader (the store's, every one being held); absent, `stallMs` alone bounds a stalled list. */
  readersWanted?: () => boolean
  /** The bytes of lists' answers kept while their data is unchanged (src/core/served-cache.ts); 0 keeps none. Default DEFAULT_RESPONSE_CACHE_BYTES. */
  responseCacheBytes?: number
}

/** RESPONSE_CACHE_MB's default, in bytes: a few thousand agent pages, or a few lists of several thousand rows. */
export const DEFAULT_RESPONSE_CACHE_BYTES = RESPONSE_CACHE_DEFAULT_MB * MEBIBYTE

/** Rows served where no metrics are kept: not counted. */
function uncounted (): void {}

async function mount (app: FastifyInstance, options: MountOptions): Promise<void> {
  // The rows served (and the answers kept) are counted when the gateway keeps metrics (plugins/metrics.ts).
  const recorded = app.hasDecorator('metrics') ? app.metrics.rows : undefined
  const cacheBytes = options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES
  const responses = cacheBytes === 0 ? undefined : servedCache({ maxBytes: cacheBytes, onLookup: app.hasDecorator('metrics') ? app.metrics.kept : undefined })
  // The app's own: what it compiles is released with it, a reload's old app included.
  const checks = validators()
  const serializers = responseSerializers()
  // Retried actions' keys, in the store every replica reads (src/store/idempotency.ts).
  // Made when an action is first called: an app that mounts none (or has no store) needs none.
  let keys: IdempotencyStore | undefined
  const kept = (): IdempotencyStore => (keys ??= storeIdempotency(app.store))
  const idempotency: IdempotencyStore = {
    claim: async (...args) => await kept().claim(...args),
    settle: async (...args) => { await kept().settle(...args) },
    release: async (...args) => { await kept().release(...args) }
  }
  // An upstream action's keys, where every replica finds them even with a store of its own.
  const shared = app.hasDecorator('redis') && app.redis !== undefined ? redisIdempotency(app.redis) : undefined
  const acting: ActSettings = { idempotency, ...(shared === undefined ? {} : { sharedIdempotency: shared }), onOutcome: app.hasDecorator('metrics') ? app.metrics.action : undefined }
  const settings: MountSettings = { timeZone: options.timeZone, handleDescription: options.handleDescription ?? HANDLE_DESCRIPTION, responses, validators: checks, acting }
  const { readersWanted } = options
  const contended = readersWanted === undefined ? undefined : { ms: options.contendedStallMs ?? DEFAULT_CONTENDED_STALL_MS, waiting: readersWanted }
  const route = { stallMs: options.stallMs ?? DEFAULT_STALL_MS, contended, onRows: recorded ?? uncounted, takesTokens: app.takesTokens, serializers }
  const resources: Resource[] = []
  const actions: ActionResource[] = []
  app.decorate('resources', { getter: () => resources })
  app.decorate('actions', { getter: () => actions })
  app.decorate('validators', checks)
  app.decorate('mount', function mountRoute (this: FastifyInstance, definition: Mount | ActionMount) {
    if (definition.kind === 'action') {
      const action = compileAction(definition, settings)
      this.route(actionRouteOf(action, serializers))
      actions.push(action)
      return
    }
    const resource = compileMount(definition, settings)
    this.route(routeOf(resource, route))
    resources.push(resource)
  })
  app.addHook('onReady', async function checkBindings () {
    unbound(resources, actions)
  })
}

/** Every affordance a mounted record binds to an action names one mounted: an agent told to call it finds it. */
function unbound (resources: readonly Resource[], actions: readonly ActionResource[]): void {
  const mounted = new Set(actions.map((action) => action.name))
  for (const resource of resources) {
    for (const [name, affordance] of Object.entries(resource.affordances ?? {})) {
      if (affordance.action !== undefined && !mounted.has(affordance.action)) {
        throw new MountError(`Route '${resource.name}': its affordance '${name}' names the action '${affordance.action}', which is not mounted; mount it, or leave the affordance unbound.`)
      }
    }
  }
}

export default fp(mount, { name: 'mount', dependencies: ['audience', 'auth', 'problems'] })
