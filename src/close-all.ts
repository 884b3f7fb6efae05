// The close step of a shutdown: the listener stops taking connections without resetting one it
// already has, then the requests in flight finish and every generation is closed.
//
// The kernel completes a client's handshake before the process accepts the connection, and Node 20
// (its libuv, 1.46) accepts one connection per turn of the event loop. Under load the listening
// socket's accept queue holds every client that connected since, each with its request sent, and
// closing the socket makes the kernel reset them all (ECONNRESET). So the socket is closed only once
// that queue is empty: new requests are held, not answered, while the listener accepts what is
// queued. A turn that accepts nothing found the queue empty; with two in a row that also end no
// request, no client answered just before can still be connecting (it reads its answer a turn after
// it is sent, and connects again in that turn). Then the socket is closed: a client connecting later
// is refused (ECONNREFUSED), cleanly, and the requests held are answered.
import type { Server } from 'node:http'
import { setImmediate as turn } from 'node:timers/promises'
import type { Generation, Generations } from './generations.js'

/** Where a listener still busy when `closeAll` gives up waiting is said. */
export interface CloseLog {
  readonly warn: (details: object, message: string) => void
}

/**
 * How many turns `closeAll` waits at most for an empty accept queue: as many as the queue holds
 * connections (Node's default listen backlog), each accepted in a turn of its own. Still busy then,
 * clients connect faster than one per turn and waiting longer would not empty it.
 */
export const ACCEPT_TURNS = 511

/** Turns in a row without a connection accepted or a request ended: see the module's comment. */
const QUIET_TURNS = 2

/**
 * No new connections, none already accepted or queued reset; idle ones closed, requests in flight
 * finished (on whichever generation took them); once every connection has ended, every generation
 * is closed: its store, Redis, pools.
 */
export async function closeAll<G extends Generation> (listener: Server, generations: Generations<G>, log: CloseLog, turns = ACCEPT_TURNS): Promise<void> {
  if (!await acceptQueued(listener, generations, turns)) log.warn({ turns }, 'connections still arriving: the listener is closed anyway, resetting those queued')
  // Closes idle connections too: kept-alive ones, and any that has sent no request yet.
  const closed = new Promise<void>((resolve) => { listener.close(() => { resolve() }) })
  await generations.quiesce()
  // The sockets those requests left kept alive.
  listener.closeIdleConnections()
  await closed
  await generations.close()
}

/**
 * Holds new requests and lets the listener accept what its queue holds, until `QUIET_TURNS` turns
 * in a row accept nothing and end no request. False if `turns` turns go by first.
 */
async function acceptQueued<G extends Generation> (listener: Server, generations: Generations<G>, turns: number): Promise<boolean> {
  generations.hold()
  let accepted = 0
  const count = (): void => { accepted++ }
  listener.on('connection', count)
  try {
    // Both only grow: their sum stays the same exactly when neither moved.
    let seen = accepted + generations.ended
    for (let quiet = 0, turned = 0; quiet < QUIET_TURNS; turned++) {
      if (turned === turns) return false
      await turn()
      const now = accepted + generations.ended
      quiet = now === seen ? quiet + 1 : 0
      seen = now
    }
    return true
  } finally {
    listener.off('connection', count)
  }
}
