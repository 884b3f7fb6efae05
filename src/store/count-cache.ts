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
  const { version, maxEntries = DEFAULT_MAX_ENTRIES } = options
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer; got ${maxEntries}.`)
  const totals = new Map<string, Promise<number>>()
  let counted: string | number | undefined
  return {
    count: async (key, compute) => {
      const current = await version()
      if (current !== counted) {
        totals.clear()
        counted = current
      }
      // The promise itself is remembered, so concurrent requests for one total share one COUNT.
      let total = totals.get(key)
      if (total === undefined) {
        total = compute()
        remember(totals, key, total, maxEntries)
      }
      return await total
    }
  }
}

/** Keys a count by the query's SQL and parameters, as the store would run it. */
export function countKey (sqlText: string, parameters: readonly unknown[]): string {
  return `${sqlText}\n${JSON.stringify(parameters, bigintsTagged)}`
}

function remember (totals: Map<string, Promise<number>>, key: string, total: Promise<number>, maxEntries: number): void {
  if (totals.size >= maxEntries) totals.delete(totals.keys().next().value as string)
  totals.set(key, total)
  // A failed count is forgotten, so the next request counts again instead of failing again.
  total.catch(() => { if (totals.get(key) === total) totals.delete(key) })
}

/** JSON has no bigint: tagged, so `5n` and `"5"` never share a key. */
function bigintsTagged (_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? { bigint: value.toString() } : value
}
