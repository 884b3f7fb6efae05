// What each Fastify hook of the gateway costs, measured inside its process (BENCH_HOOK_TIMES=1):
// every hook added from here on, the app's global ones (addHook) and its routes' own (a route's
// onRequest, such as the rate limit's), is wrapped in a timer, and a route reports the totals. A
// hook's time runs from its call to its `done` (or its promise settling): its own work, not the
// hooks after it. A route's own hook is named by its route, or, when the same hook is every route's
// own (the rate limit's), by how many routes carry it. Timing costs a little itself, so a hook that
// does nothing is added and timed the same way: the floor every other figure is read against. A
// second one runs where the answer's hooks do, after the body is written and hashed (each route's
// own onSend runs after the app's): an answer's hook is read against it, at the same point of the
// request, its caches as cold.
// Bench only: nothing here ships.
import type { FastifyInstance, RouteOptions } from 'fastify'

export const HOOK_TIMES_URL = '/bench/hook-times'

/** The name of the do-nothing hook timed beside the gateway's. */
export const FLOOR_HOOK = 'onRequest nothing (the floor)'

/** The name of the do-nothing hook timed after the answer's own (onSend) hooks. */
export const ANSWER_FLOOR_HOOK = 'onSend nothing (the floor once answered)'

/** Nanoseconds spent in one hook, and how many times it ran. */
export interface HookTime {
  readonly ns: number
  readonly calls: number
}

/** Lifecycle hooks a route may carry in its own options. */
const ROUTE_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse'] as const

type Hook = (...args: any[]) => unknown

/** Times every hook `server` (and anything registered in it afterwards) adds; call before registering the app. */
export function timeHooks (server: FastifyInstance): void {
  /** Each hook's totals, and the routes it was found on (a route's own hook; none for the app's). */
  const totals = new Map<Hook, { readonly kind: string, readonly routes: Set<string>, ns: bigint, calls: number }>()
  const wrappers = new WeakMap<Hook, Hook>()
  const timedOnce = (kind: string, hook: Hook, route?: string): Hook => {
    let total = totals.get(hook)
    if (total === undefined) {
      total = { kind, routes: new Set(), ns: 0n, calls: 0 }
      totals.set(hook, total)
    }
    if (route !== undefined) total.routes.add(route)
    let wrapper = wrappers.get(hook)
    if (wrapper === undefined) {
      const counted = total
      wrapper = timed(hook, (started) => {
        counted.ns += process.hrtime.bigint() - started
        counted.calls++
      })
      wrappers.set(hook, wrapper)
    }
    return wrapper
  }
  const addHook = server.addHook.bind(server) as (kind: string, hook: Hook) => FastifyInstance
  // Every instance a plugin is registered in inherits this one's addHook.
  Object.defineProperty(server, 'addHook', {
    value: function addTimedHook (this: FastifyInstance, kind: string, hook: Hook) {
      const lifecycle = (ROUTE_HOOKS as readonly string[]).includes(kind)
      return addHook.call(this, kind, lifecycle ? timedOnce(kind, hook) : hook)
    }
  })
  const nothing = function nothing (_request: unknown, _reply: unknown, done: () => void) { done() }
  const nothingOnceAnswered = function nothingOnceAnswered (_request: unknown, _reply: unknown, payload: unknown, done: (error: null, payload: unknown) => void) { done(null, payload) }
  // A route's own hooks, as the app's onRoute hooks (added after this one) leave them when Fastify reads them.
  addHook('onRoute', (route: RouteOptions) => {
    route.onSend = [...[route.onSend ?? []].flat(), nothingOnceAnswered]
    for (const kind of ROUTE_HOOKS) {
      let value: unknown = route[kind]
      Object.defineProperty(route, kind, {
        configurable: true,
        enumerable: true,
        get: () => Array.isArray(value) ? timedList(value, (hook) => timedOnce(kind, hook, route.url)) : typeof value === 'function' ? timedOnce(kind, value as Hook, route.url) : value,
        set: (next: unknown) => { value = next }
      })
    }
  })
  server.addHook('onRequest', nothing)
  server.get(HOOK_TIMES_URL, { config: { rateLimit: false } }, async () => Object.fromEntries([...totals].filter(([, total]) => total.calls > 0).map(([hook, total]) => [
    hook === nothing ? FLOOR_HOOK : hook === nothingOnceAnswered ? ANSWER_FLOOR_HOOK : nameOf(hook, total.kind, total.routes),
    { ns: Number(total.ns), calls: total.calls }
  ])))
}

/** A hook as the bench reports it: its kind and name, and the route it is that route's own hook on, or how many routes share it. */
function nameOf (hook: Hook, kind: string, routes: ReadonlySet<string>): string {
  const name = `${kind} ${hook.name === '' ? 'anonymous' : hook.name}`
  if (routes.size === 0) return name
  return routes.size === 1 ? `${name} (route ${[...routes][0]})` : `${name} (on each of ${routes.size} routes)`
}

/** A list whose reads give timed hooks and whose writes (a plugin's push) reach the list itself. */
function timedList (list: unknown[], wrap: (hook: Hook) => Hook): unknown[] {
  return new Proxy(list, {
    get: (target, key, receiver) => {
      const value = Reflect.get(target, key, receiver)
      return typeof key === 'string' && /^\d+$/.test(key) && typeof value === 'function' ? wrap(value as Hook) : value
    }
  })
}

/** `hook` timed from its call to its `done` (the last argument) or its promise settling, whichever it uses. */
function timed (hook: Hook, record: (started: bigint) => void): Hook {
  const wrapper = hook.constructor.name === 'AsyncFunction'
    ? async function (this: unknown, ...args: unknown[]) {
      const started = process.hrtime.bigint()
      try {
        return await hook.apply(this, args)
      } finally {
        record(started)
      }
    }
    : function (this: unknown, ...args: unknown[]) {
      const started = process.hrtime.bigint()
      let recorded = false
      const stop = (): void => {
        if (!recorded) record(started)
        recorded = true
      }
      const done = args[args.length - 1]
      if (typeof done === 'function') args[args.length - 1] = function (this: unknown, ...results: unknown[]) { stop(); return done.apply(this, results) }
      const result = hook.apply(this, args)
      if (result instanceof Promise) return result.finally(stop)
      return result
    }
  // Fastify tells a hook's style by its arity (and whether it is async): the wrapper keeps both.
  Object.defineProperty(wrapper, 'length', { value: hook.length })
  return wrapper
}
