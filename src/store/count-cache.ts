// Exact totals without a full COUNT on every request: a total is remembered together with the
// version of the data it was counted at, and served only while that version still holds. What a
// version is belongs to the store (data-version.ts); where totals live belongs to the cache (this
// one keeps them in memory; a shared one, e.g. in Redis, keeps the same contract).

export interface CountCache {
  /** The total `key` names: the remembered one while the data is unchanged, else `compute`'s. */
  count: (key: string, compute: () => Promise<number>) => Promise<number>
}

export interface VersionedCountCacheOptions {
  /**
   * A value that changes whenever the counted data may have changed. It is read before every
   * lookup, so it must be cheap (O(1)), and read before the count it guards.
   */
  version: () => Promise<string | number>
  /** How many totals are remembered at once (default 1000); the oldest goes first. */
  maxEntries?: number
}

export const DEFAULT_MAX_ENTRIES = 1000

/** No cache: every request pays its COUNT (stores without a cheap version of their data). */
export const uncachedCounts: CountCache = Object.freeze({ count: async (_key: string, compute: () => Promise<number>) => await compute() })

/**
 * An in-memory cache of totals, emptied whenever `version` changes. A total is only ever stored
 * under a version read before its COUNT ran, so a write landing mid-count changes the version and
 * the next lookup counts again: a served total is never older than the version check of its request.
 */
export function versionedCountCache (options: VersionedCountCacheOptions): CountCache {
  const totals = versionedMemo<number>(options)
  return { count: totals.get }
}

/** Values, each computed at most once per version of the data (a total, a list's anchors). */
export interface VersionedMemo<T> {
  /** The value `key` names: the remembered one while the data is unchanged, else `compute`'s. */
  get: (key: string, compute: () => Promise<T>) => Promise<T>
}

/** What versionedCountCache does for totals, for any value computed from the data. */
export function versionedMemo<T> (options: VersionedCountCacheOptions): VersionedMemo<T> {
  const { version, maxEntries = DEFAULT_MAX_ENTRIES } = options
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer; got ${maxEntries}.`)
  const values = new Map<string, Promise<T>>()
  let computedAt: string | number | undefined
  return {
    get: async (key, compute) => {
      const current = await version()
      if (current !== computedAt) {
        values.clear()
        computedAt = current
      }
      // The promise itself is remembered, so concurrent requests for one value share one computation.
      let value = values.get(key)
      if (value === undefined) {
        value = compute()
        remember(values, key, value, maxEntries)
      }
      return await value
    }
  }
}

function remember<T> (values: Map<string, Promise<T>>, key: string, value: Promise<T>, maxEntries: number): void {
  if (values.size >= maxEntries) values.delete(values.keys().next().value as string)
  values.set(key, value)
  // A failed computation is forgotten, so the next request computes again instead of failing again.
  value.catch(() => { if (values.get(key) === value) values.delete(key) })
}
