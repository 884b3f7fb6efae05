// Waiting for a state that no event announces: a server's view of its connections, a listener
// seen only from outside. Wherever an event exists (an emitter's, a hook's, a callback's), a test
// awaits that instead, and never sleeps: a sleep is either too short on a busy machine or wasted.
import { setImmediate as turn } from 'node:timers/promises'

/** Checks before `until` gives up, unless told otherwise. */
export const UNTIL_TRIES = 1000

/**
 * Resolves with the first truthy answer of `check`, asked again on each turn of the event loop;
 * rejects, naming `what`, after `tries` answers. Meant for a check that asks something (a query, a
 * request, a connection): each waits for its answer, so the bound counts round trips, not time.
 */
export async function until<T> (check: () => T | Promise<T>, what: string, tries = UNTIL_TRIES): Promise<Exclude<T, false | null | undefined>> {
  for (let asked = 1; ; asked++) {
    const answer = await check()
    if (answer !== false && answer !== null && answer !== undefined) return answer as Exclude<T, false | null | undefined>
    if (asked >= tries) throw new Error(`Still waiting until ${what} after ${tries} checks.`)
    await turn()
  }
}

/**
 * Waits for `event` with the process held open: for an event that only an unreferenced timer or
 * handle brings (a pool's idle connection, a sampler's timer), which would not keep the process
 * alive until it comes.
 */
export async function heldOpen<T> (event: Promise<T>): Promise<T> {
  const open = setInterval(() => {}, 60_000)
  try {
    return await event
  } finally {
    clearInterval(open)
  }
}
