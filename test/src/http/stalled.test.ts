// A streamed list is cut once its client has not read for the bound, and sooner while a request
// waits for a reader; a client that reads is never cut. The watcher's looks are counted through the
// one thing it reads, `writableNeedDrain`: the tests wait for looks, never for time.
import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import t from 'tap'
import { cutWhenStalled, type StallBounds } from '../../../src/http/stalled.js'

// The watcher's timer keeps no process alive (a stalled stream must not delay an exit): this one
// keeps the test's alive while it waits for the watcher's looks.
const alive = setInterval(() => {}, 60_000)
t.teardown(() => { clearInterval(alive) })

interface Watched {
  readonly response: ServerResponse
  /** The looks the watcher took so far. */
  looks: () => number
  /** Resolves once the watcher has looked `count` times in all. */
  looked: (count: number) => Promise<void>
  /** Resolves with the bound the response was cut by, and whether it was the shorter one, someone waiting. */
  cut: Promise<{ ms: number, contended: boolean }>
  destroyed: () => boolean
}

/** A response whose socket answers `needsDrain(look)` at each look of the watcher (numbered from 1). */
function watched (bounds: StallBounds, needsDrain: (look: number, response: EventEmitter) => boolean): Watched {
  const emitter = new EventEmitter()
  const events = new EventEmitter()
  let looks = 0
  let destroyed = false
  Object.defineProperty(emitter, 'writableNeedDrain', {
    get: () => {
      looks++
      const answer = needsDrain(looks, emitter)
      events.emit('look', looks)
      return answer
    }
  })
  const response = Object.assign(emitter, {
    destroy: () => {
      destroyed = true
      emitter.emit('close')
    }
  }) as unknown as ServerResponse
  let told: (cut: { ms: number, contended: boolean }) => void = () => {}
  const cut = new Promise<{ ms: number, contended: boolean }>((resolve) => { told = resolve })
  cutWhenStalled(response, bounds, (ms, contended) => { told({ ms, contended }) })
  return {
    response,
    looks: () => looks,
    looked: async (count) => {
      if (looks >= count) return
      await new Promise<void>((resolve) => {
        const seen = (look: number): void => {
          if (look < count) return
          events.off('look', seen)
          resolve()
        }
        events.on('look', seen)
      })
    },
    cut,
    destroyed: () => destroyed
  }
}

t.test('a response that waits to drain, with no one else waiting, is cut once it has waited the bound', async (t) => {
  // Looked at every 2 ms (half the bound): cut at the third look, the wait having lasted 2 looks apart.
  const stream = watched({ ms: 4 }, () => true)
  t.strictSame(await stream.cut, { ms: 4, contended: false }, 'cut by the usual bound')
  t.ok(stream.destroyed(), 'destroyed: its stream ends, its reader given back')
  t.equal(stream.looks(), 3, 'at the first look past the bound')
})

t.test('while no one waits for a reader, the shorter bound does not apply', async (t) => {
  let asked = 0
  const stream = watched({ ms: 20, contended: { ms: 2, waiting: () => { asked++; return false } } }, () => true)
  t.strictSame(await stream.cut, { ms: 20, contended: false }, 'cut by the usual bound')
  // Looked at every millisecond: the wait outlasted the shorter bound at the third look, the usual one at the 21st.
  t.equal(stream.looks(), 21)
  t.equal(asked, 18, 'asked at each look between the two bounds')
})

t.test('while a request waits for a reader, a response that waits to drain is cut at the shorter bound', async (t) => {
  let waiting = false
  const stream = watched({ ms: 600_000, contended: { ms: 4, waiting: () => waiting } }, (look) => {
    // Someone starts waiting after a few looks past the shorter bound.
    if (look === 6) waiting = true
    return true
  })
  t.strictSame(await stream.cut, { ms: 4, contended: true }, 'cut by the shorter bound')
  t.ok(stream.destroyed())
  t.equal(stream.looks(), 6, 'at the first look that found someone waiting')
})

t.test('a response that drains between looks, or needs no drain, is never cut', async (t) => {
  const stream = watched({ ms: 2, contended: { ms: 2, waiting: () => true } }, (look, response) => {
    // Odd looks find it drained since the last; even ones find nothing waiting to be written.
    if (look % 2 === 1) {
      response.emit('drain')
      return true
    }
    return false
  })
  await stream.looked(50)
  t.notOk(stream.destroyed(), 'not cut after 50 looks, each of which would have cut a stalled one')
  stream.response.emit('close')
})

t.test('a response that closes stops being watched', async (t) => {
  const stream = watched({ ms: 2 }, () => false)
  await stream.looked(1)
  stream.response.emit('close')
  t.equal(stream.response.listenerCount('drain'), 0, 'its drain listener removed with its timer')
})
