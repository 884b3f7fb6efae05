// A number of slots, held one at a time: a holder waits for a free one at most a bounded time, and a
// freed slot goes to the longest waiter. What bounds the SQLite readers, and one client's streams.
import type { ReaderUse } from './store.js'

export interface Semaphore {
  /** True once a slot is held; false when none came free within `waitMs`. */
  acquire: (waitMs: number) => Promise<boolean>
  release: () => void
  /** Slots held and holders waiting for one, now. */
  use: () => ReaderUse
}

/** `size` slots (a positive integer, checked by the caller, which names the setting); `onWait` told of each wait. */
export function semaphore (size: number, onWait?: () => void): Semaphore {
  let free = size
  const waiting: Array<() => void> = []
  return {
    acquire: async (waitMs) => {
      if (free > 0) {
        free--
        return true
      }
      onWait?.()
      return await new Promise<boolean>((resolve) => {
        const granted = (): void => {
          clearTimeout(timer)
          resolve(true)
        }
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(granted), 1)
          resolve(false)
        }, waitMs)
        waiting.push(granted)
      })
    },
    use: () => ({ inUse: size - free, waiting: waiting.length }),
    // A freed slot goes straight to the longest waiter, so none can be overtaken.
    release: () => {
      const next = waiting.shift()
      if (next === undefined) free++
      else next()
    }
  }
}
