// A plain list streams for as long as its client reads it. A client that stops reading (its receive
// window full, no reads) would hold what the list reads from (a SQLite reader, a PostgreSQL
// connection) until the socket's inactivity timeout, and a few such clients would hold them all. So
// a response whose socket has not drained for `ms` is cut: destroying it ends the stream, which gives
// its reader back. While another request waits for a reader (`contended`), a shorter bound applies:
// a stalled client then keeps someone else waiting, not just itself. The client can tell a cut: the
// chunked body has no final chunk.
import type { ServerResponse } from 'node:http'

/** How long a streamed list may wait on a client that does not read, unless the gateway is told otherwise. */
export const DEFAULT_STALL_MS = 10_000

/** How long it may wait while another request waits for a reader, unless the gateway is told otherwise. */
export const DEFAULT_CONTENDED_STALL_MS = 2000

export interface StallBounds {
  /** Cut once the response has waited this long to drain. */
  readonly ms: number
  /** Cut sooner, once it has waited `ms` to drain, while `waiting()` says a request waits for what it holds. */
  readonly contended?: { readonly ms: number, readonly waiting: () => boolean }
}

/**
 * Watches `response` while it streams, and cuts it (telling `onCut` the bound it outlasted, and
 * whether that was the shorter one, someone waiting) once its writes have been waiting to drain for
 * a bound, give or take half the shorter bound: it is looked at every half of it. One timer per
 * stream, stopped when the response closes.
 */
export function cutWhenStalled (response: ServerResponse, bounds: StallBounds, onCut: (ms: number, contended: boolean) => void): void {
  const { contended } = bounds
  const contendedMs = contended?.ms ?? bounds.ms
  const tick = Math.min(bounds.ms, contendedMs) / 2
  const ticks = Math.ceil(bounds.ms / tick)
  const contendedTicks = Math.ceil(contendedMs / tick)
  // Looks in a row that found the response waiting to drain, with no drain between: the wait began
  // before the first of them, so it has lasted at least `seen - 1` ticks.
  let seen = 0
  const onDrain = (): void => { seen = 0 }
  const timer = setInterval(() => {
    if (!response.writableNeedDrain) {
      seen = 0
      return
    }
    const waited = seen++
    if (waited >= ticks) cut(bounds.ms, false)
    else if (contended !== undefined && waited >= contendedTicks && contended.waiting()) cut(contended.ms, true)
  }, tick)
  // A stalled stream must not keep the process alive on its own (a shutdown's grace period bounds it).
  timer.unref()
  function cut (ms: number, whileContended: boolean): void {
    stop()
    onCut(ms, whileContended)
    response.destroy()
  }
  function stop (): void {
    clearInterval(timer)
    response.off('drain', onDrain)
  }
  response.on('drain', onDrain)
  response.once('close', stop)
}
