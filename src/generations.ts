// One listener, successive apps. Fastify cannot drop a route once it is ready, so a reload builds a
// whole new app (a generation) and the listener hands each request to the generation current when
// the request arrives; that generation serves it to its end. A replaced generation is closed, its
// store, Redis and upstream pools released, once the last request it took has ended.
import type { EventEmitter } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http'

/** An app as the listener sees it: what serves a request, and what releases everything it holds. */
export interface Generation {
  readonly serve: (request: IncomingMessage, response: ServerResponse) => void
  /** Told the listener's connection-level events (a malformed request, CONNECT), as its own server would be. */
  readonly events: EventEmitter
  readonly close: () => Promise<void>
}

/** The listener's limits: those Fastify would set on a server of its own (`serverOptions`). */
export interface ListenerOptions {
  readonly http: ServerOptions
  readonly requestTimeout: number
  readonly connectionTimeout: number
  readonly keepAliveTimeout: number
}

/** Events of a connection rather than of a request: each goes to the current generation's handler. */
const FORWARDED = ['clientError', 'connect', 'checkExpectation'] as const

/** The one server that listens, with Fastify's limits, handing every request to `generations`. */
export function createListener<G extends Generation> (generations: Generations<G>, options: ListenerOptions): Server {
  const server = createServer(options.http, generations.serve)
  server.keepAliveTimeout = options.keepAliveTimeout
  server.requestTimeout = options.requestTimeout
  server.setTimeout(options.connectionTimeout)
  for (const event of FORWARDED) {
    server.on(event, (...args: unknown[]) => { generations.current.events.emit(event, ...args) })
  }
  return server
}

export class Generations<G extends Generation = Generation> {
  #current: G
  /** Requests taken and not yet ended, per generation still open. */
  readonly #inFlight = new Map<G, number>()
  /** Replaced generations, each with the promise of its close once its last request ends. */
  readonly #retiring = new Map<G, { readonly closed: Promise<void>, readonly release: () => void }>()
  #closing = false
  /** While the listener empties its accept queue: requests taken, each handed to its generation once that is over. */
  #held: Array<() => void> | undefined
  /** Requests ended so far, across every generation. */
  #ended = 0
  #closed: Promise<void> | undefined
  /** Told once no request is in flight. */
  readonly #onIdle: Array<() => void> = []

  constructor (first: G) {
    this.#current = first
    this.#inFlight.set(first, 0)
  }

  /** The generation new requests go to. */
  get current (): G {
    return this.#current
  }

  /** Requests taken and not yet ended, across every generation. */
  get inFlight (): number {
    let total = 0
    for (const count of this.#inFlight.values()) total += count
    return total
  }

  /** Requests ended so far, across every generation: a client answered may connect again. */
  get ended (): number {
    return this.#ended
  }

  /** How many generations are open: the current one and those still finishing their requests. */
  get open (): number {
    return this.#inFlight.size
  }

  /** The listener's request handler: the request is the current generation's, to its end. */
  readonly serve = (request: IncomingMessage, response: ServerResponse): void => {
    const generation = this.#current
    this.#inFlight.set(generation, this.#inFlight.get(generation)! + 1)
    // 'close' ends every response, once: sent whole, cut, or its client gone.
    response.once('close', () => { this.#end(generation) })
    if (this.#held === undefined) this.#hand(generation, request, response)
    else this.#held.push(() => { this.#hand(generation, request, response) })
  }

  /**
   * The process's shutdown, before the listener closes: requests arriving from now on are held, not
   * answered, until `quiesce`, so that no client answered connects again meanwhile.
   */
  hold (): void {
    this.#held ??= []
  }

  /**
   * New requests go to `next` from now on; the generation it replaces is closed once its requests
   * have ended. Resolves when that close is over.
   */
  async replace (next: G): Promise<void> {
    const previous = this.#current
    this.#current = next
    this.#inFlight.set(next, 0)
    await this.#retire(previous)
  }

  /**
   * The process's shutdown, once the listener stopped taking connections: from now on each answer
   * says `Connection: close`, the requests held first. Resolves once no request is in flight in any
   * generation.
   */
  async quiesce (): Promise<void> {
    this.#closing = true
    const held = this.#held ?? []
    this.#held = undefined
    for (const hand of held) hand()
    if (this.inFlight > 0) await new Promise<void>((resolve) => { this.#onIdle.push(resolve) })
  }

  /**
   * Every generation closed: the current one, and those replaced, each once its requests have
   * ended. Asked again, the same close.
   */
  async close (): Promise<void> {
    this.#closed ??= Promise.all([this.#retire(this.#current), ...[...this.#retiring.values()].map(async ({ closed }) => { await closed })]).then(() => {})
    await this.#closed
  }

  /** Closes `generation` once its requests have ended: called once for each, when it stops being current. */
  async #retire (generation: G): Promise<void> {
    let release!: () => void
    const idle = new Promise<void>((resolve) => { release = resolve })
    const closed = idle.then(async () => {
      this.#inFlight.delete(generation)
      try {
        await generation.close()
      } finally {
        // Nothing of a closed generation is kept.
        this.#retiring.delete(generation)
      }
    })
    this.#retiring.set(generation, { closed, release })
    if (this.#inFlight.get(generation) === 0) release()
    await closed
  }

  #hand (generation: G, request: IncomingMessage, response: ServerResponse): void {
    // Closing: a request still arriving on an open socket is served, and its socket closed after it.
    if (this.#closing) response.setHeader('connection', 'close')
    generation.serve(request, response)
  }

  #end (generation: G): void {
    this.#ended++
    const count = this.#inFlight.get(generation)! - 1
    this.#inFlight.set(generation, count)
    if (count === 0) this.#retiring.get(generation)?.release()
    if (this.#onIdle.length > 0 && this.inFlight === 0) for (const resolve of this.#onIdle.splice(0)) resolve()
  }
}
