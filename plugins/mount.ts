// `app.mount(mount)` serves one declaration both ways: compiled once by the core, routed over HTTP,
// with the gateway's zone and handle wording fixed once for every mount.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { MEBIBYTE, RESPONSE_CACHE_DEFAULT_MB } from '../src/config.js'
import { compileMount, type Resource } from '../src/core/resource.js'
import { servedCache } from '../src/core/served-cache.js'
import type { Mount, MountSettings } from '../src/core/mount.js'
import { validators, type Validators } from '../src/core/validators.js'
import { routeOf } from '../src/http/route.js'
import { DEFAULT_CONTENDED_STALL_MS, DEFAULT_STALL_MS } from '../src/http/stalled.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Serves `mount` to plain clients and agents; its source's rows must match its declaration. */
    mount: <Args, Row>(mount: Mount<Args, Row>) => void
    /** Every resource mounted so far, in mount order: what other transports (MCP) serve. */
    readonly resources: readonly Resource[]
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
  const settings: MountSettings = { timeZone: options.timeZone, handleDescription: options.handleDescription ?? HANDLE_DESCRIPTION, responses, validators: checks }
  const { readersWanted } = options
  const contended = readersWanted === undefined ? undefined : { ms: options.contendedStallMs ?? DEFAULT_CONTENDED_STALL_MS, waiting: readersWanted }
  const route = { stallMs: options.stallMs ?? DEFAULT_STALL_MS, contended, onRows: recorded ?? uncounted, takesTokens: app.takesTokens }
  const resources: Resource[] = []
  app.decorate('resources', { getter: () => resources })
  app.decorate('validators', checks)
  app.decorate('mount', function mountRoute (this: FastifyInstance, definition: Mount) {
    const resource = compileMount(definition, settings)
    this.route(routeOf(resource, route))
    resources.push(resource)
  })
}

export default fp(mount, { name: 'mount', dependencies: ['audience', 'auth', 'problems'] })
