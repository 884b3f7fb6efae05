// Draining before a shutdown, as a balancer expects of a replica it is taking out: from `app.drain()`
// on, readiness answers 503 (plugins/health.ts) while every other request is still served, each
// answer with `Connection: close`, so that clients on kept-alive sockets reconnect, to another
// replica once the balancer has seen the 503. The process (src/server.ts) decides when to drain
// and when to close; this plugin also counts the responses in flight, for the log of a cut.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    /** From now on: readiness 503, `Connection: close` on every answer. Idempotent. */
    drain: () => void
    /** Whether `drain()` was called. */
    readonly draining: boolean
    /** Responses begun and not yet finished or abandoned. */
    readonly inFlight: number
  }
}

async function drain (app: FastifyInstance): Promise<void> {
  let draining = false
  let inFlight = 0
  app.decorate('drain', () => { draining = true })
  app.decorate('draining', { getter: () => draining })
  app.decorate('inFlight', { getter: () => inFlight })
  // With `done` rather than async: run on every request, spared a promise and a microtask.
  app.addHook('onRequest', (_request, reply, done) => {
    inFlight++
    // 'close' ends every response, once: sent whole, cut, or its client gone.
    reply.raw.once('close', () => { inFlight-- })
    if (draining) reply.header('connection', 'close')
    done()
  })
}

export default fp(drain, { name: 'drain' })
