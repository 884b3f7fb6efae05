// A plain list streams for as long as its client reads it. A client that stops reading (its receive
// window full, no reads) would hold what the list reads from (a SQLite reader, a PostgreSQL
// connection) until the socket's inactivity timeout, and a few such clients would hold them all. So
// a response whose socket has not drained for `ms` is cut: destroying it ends the stream, which gives
// its reader back. The client can tell: the chunked body has no final chunk.
import type { ServerResponse } from 'node:http'

/** How long a streamed list may wait on a client that does not read, unless the gateway is told otherwise. */
export const DEFAULT_STALL_MS = 10_000

/**
 * Watches `response` while it streams: cut (and `onCut` told) once its writes have been waiting
 * to drain for between `ms` and twice that. One timer per stream, stopped when the response closes.
 */
export function cutWhenStalled (response: ServerResponse, ms: number, onCut: () => void): void {
  let drained = false
  let waitingBefore = false
  const onDrain = (): void => { drained = true }
  const timer = setInterval(() => {
    const waiting = response.writableNeedDrain
    if (waiting && waitingBefore && !drained) {
      stop()
      onCut()
      response.destroy()
      return
    }
    waitingBefore = waiting
    drained = false
  }, ms)
  // A stalled stream must not keep the process alive on its own (a shutdown's grace period bounds it).
  timer.unref()
  function stop (): void {
    clearInterval(timer)
    response.off('drain', onDrain)
  }
  response.on('drain', onDrain)
  response.once('close', stop)
}
