// Answers kept while the data they were read from is unchanged. A list source with a version (a
// store's: any committed write changes it) names the rows it would read now; an agent's page and a
// plain client's whole list are functions of that name, the mount and the call's arguments, so the
// answer computed once is the answer until the name changes. Nothing is ever invalidated by hand:
// a write changes the name, the next request misses, and answers under names no longer read are
// the least recently used, the first to go. Bounded by bytes, least recently used first (lru-cache).
import { LRUCache } from 'lru-cache'

/** An agent's envelope or a plain list's whole bytes, with the rows it holds (metrics are told). */
export type KeptAnswer =
  | { readonly kind: 'page', readonly body: Readonly<Record<string, unknown>>, readonly rows: number }
  | { readonly kind: 'list', readonly bytes: Buffer, readonly rows: number }

/** Told of every lookup: `hit`, or `miss` (the answer is computed, and kept when it fits). */
export type KeptOutcome = 'hit' | 'miss'

/** One mount's answers: keys need only be unique within it. */
export interface KeptAnswers {
  get: (key: string) => KeptAnswer | undefined
  /** Keeps `answer`, `size` bytes (its JSON's), unless it is larger than `maxEntryBytes`. */
  set: (key: string, answer: KeptAnswer, size: number) => void
  /** The largest answer kept: a plain list stops being recorded past it. */
  readonly maxEntryBytes: number
}

export interface ServedCache {
  /** A namespace of its own for one mount. */
  scope: () => KeptAnswers
}

export interface ServedCacheOptions {
  /** The bytes of JSON kept in all (the objects of an envelope take more in memory than their JSON). */
  readonly maxBytes: number
  /** Told of every lookup (metrics). */
  readonly onLookup?: (outcome: KeptOutcome) => void
}

/** One answer may take at most this share of the whole: a large list never empties the cache alone. */
const ENTRY_SHARE = 8

export function servedCache ({ maxBytes, onLookup }: ServedCacheOptions): ServedCache {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < ENTRY_SHARE) throw new RangeError(`maxBytes must be a whole number of bytes from ${ENTRY_SHARE}; got ${maxBytes}.`)
  const maxEntryBytes = Math.floor(maxBytes / ENTRY_SHARE)
  const answers = new LRUCache<string, KeptAnswer>({ maxSize: maxBytes, maxEntrySize: maxEntryBytes })
  let scopes = 0
  return {
    scope: () => {
      const prefix = `${scopes++}\n`
      return {
        maxEntryBytes,
        get: (key) => {
          const answer = answers.get(prefix + key)
          onLookup?.(answer === undefined ? 'miss' : 'hit')
          return answer
        },
        set: (key, answer, size) => {
          // lru-cache refuses an entry above maxEntrySize (and one of size 0) by not storing it.
          if (size > 0 && size <= maxEntryBytes) answers.set(prefix + key, answer, { size })
        }
      }
    }
  }
}
