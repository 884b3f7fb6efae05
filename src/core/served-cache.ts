// Answers kept while the data they were read from is unchanged. A list source with a version (a
// store's: any committed write changes it) names the rows it would read now; an agent's page and a
// plain client's whole list are functions of that name, the mount and the call's arguments, so the
// answer computed once is the answer until the name changes. Nothing is ever invalidated by hand:
// a write changes the name, the next request misses, and answers under names no longer read are
// the least recently used, the first to go. Bounded by bytes, least recently used first (lru-cache).
// An answer is kept from the second time its name is asked, not the first: most are asked once (each
// page of an agent's walk, a filter tried once), and keeping those cost each of them its freezing and
// weighing and pushed out answers that are asked again. The names asked once are remembered, a
// bounded number of them, so the second ask is known.
import { LRUCache } from 'lru-cache'

/** An agent's envelope or a plain list's whole bytes, with the rows it holds (metrics are told). */
export type KeptAnswer =
  | { readonly kind: 'page', readonly body: Readonly<Record<string, unknown>>, readonly rows: number }
  | { readonly kind: 'list', readonly bytes: Buffer, readonly rows: number }

/** Told of every lookup: `hit`, or `miss` (the answer is computed, and kept when it fits). */
export type KeptOutcome = 'hit' | 'miss'

/** One mount's answers: keys need only be unique within it. */
export interface KeptAnswers {
  /** The answer kept under `key`; on a miss, the key is remembered as asked. */
  get: (key: string) => KeptAnswer | undefined
  /** After a miss: whether the answer computed for `key` is worth keeping, its key having missed before (the admission filter). */
  wants: (key: string) => boolean
  /** Keeps `answer`, unless it weighs more than `maxEntryBytes`. */
  set: (key: string, answer: KeptAnswer) => void
  /** The largest answer kept: a plain list stops being recorded past it. */
  readonly maxEntryBytes: number
}

export interface ServedCache {
  /** A namespace of its own for one mount. */
  scope: () => KeptAnswers
}

export interface ServedCacheOptions {
  /** The memory answers may take in all, in bytes, as weighed by `weight`. */
  readonly maxBytes: number
  /** Told of every lookup (metrics). */
  readonly onLookup?: (outcome: KeptOutcome) => void
}

/** One answer may take at most this share of the whole: a large list never empties the cache alone. */
const ENTRY_SHARE = 8

/**
 * How many names missed are remembered, across every mount, the least recently asked forgotten
 * first: a name forgotten before it is asked again is kept from its next second ask. A name is about
 * a hundred bytes: some 400 KiB at most, whatever the cache's size.
 */
export const ASKED_NAMES = 4096

/**
 * An envelope kept takes its objects and, once written, its text (serializer.ts): measured on the
 * demo's ledger pages, about 2.9 times its JSON's length of V8's heap.
 */
const PAGE_WEIGHT = 3

/** The bytes an answer takes: a plain list its own, an envelope three times its JSON's length. */
export function weight (answer: KeptAnswer): number {
  return answer.kind === 'list' ? answer.bytes.length : PAGE_WEIGHT * JSON.stringify(answer.body).length
}

export function servedCache ({ maxBytes, onLookup }: ServedCacheOptions): ServedCache {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < ENTRY_SHARE) throw new RangeError(`maxBytes must be a whole number of bytes from ${ENTRY_SHARE}; got ${maxBytes}.`)
  const maxEntryBytes = Math.floor(maxBytes / ENTRY_SHARE)
  const answers = new LRUCache<string, KeptAnswer>({ maxSize: maxBytes, maxEntrySize: maxEntryBytes })
  // Each name missed, with how many times: the admission filter's memory.
  const missed = new LRUCache<string, number>({ max: ASKED_NAMES })
  let scopes = 0
  return {
    scope: () => {
      const prefix = `${scopes++}\n`
      return {
        maxEntryBytes,
        get: (key) => {
          const name = prefix + key
          const answer = answers.get(name)
          onLookup?.(answer === undefined ? 'miss' : 'hit')
          if (answer === undefined) missed.set(name, (missed.get(name) ?? 0) + 1)
          return answer
        },
        wants: (key) => (missed.get(prefix + key, { updateAgeOnGet: false }) ?? 0) > 1,
        set: (key, answer) => {
          const size = weight(answer)
          // lru-cache refuses an entry above maxEntrySize (and one of size 0) by not storing it.
          if (size > 0 && size <= maxEntryBytes) answers.set(prefix + key, answer, { size })
        }
      }
    }
  }
}

/** `value` and everything in it frozen: a kept answer is shared by every call it serves, and no transport may change it. */
export function frozenWhole<T> (value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozenWhole(inner)
    Object.freeze(value)
  }
  return value
}
