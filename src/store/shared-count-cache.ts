// Totals shared by replicas: each keeps the versioned cache in its memory and, on a miss, asks a
// shared store (Redis) for the total another replica counted at the same version before counting
// itself, so a change of the data costs the replicas one COUNT between them rather than one each.
// The shared store helps and is never needed: when it fails, the replica counts for itself.
import { createHash } from 'node:crypto'
import { versionedCountCache, type CountCache } from './count-cache.js'

/** The two commands used, as ioredis spells them. */
export interface TotalsStore {
  get: (key: string) => Promise<string | null>
  set: (key: string, value: string, expiry: 'PX', milliseconds: number) => Promise<unknown>
}

export interface SharedCountCacheOptions {
  /** A version of the data that reads the same on every replica for the same data (see data-version.ts). */
  version: () => Promise<string>
  store: TotalsStore
  /** Which data this is (cluster, database, user, schema): part of every key, so stores never mix. */
  identity: string
  /** Told when the shared store fails; the total is then counted (or kept) here. */
  onError: (error: unknown) => void
  /** How long an unused total stays in the shared store (default 10 minutes); only space depends on it. */
  ttlMs?: number
  /** Totals remembered in this process (default 1000). */
  maxEntries?: number
}

export const DEFAULT_SHARED_TTL_MS = 10 * 60 * 1000

/**
 * One shared entry per count (its query and arguments), holding the version it was counted at and
 * the total, overwritten by the next version's: the store holds at most one total per count,
 * whatever the rate of writes, and a total is served only for the version it was counted at.
 */
export function sharedCountCache (options: SharedCountCacheOptions): CountCache {
  const { version, store, identity, onError, ttlMs = DEFAULT_SHARED_TTL_MS } = options
  const local = versionedCountCache({ version, maxEntries: options.maxEntries })
  return { count: async (key, compute) => await local.count(key, async () => await throughStore(key, compute)) }

  async function throughStore (key: string, compute: () => Promise<number>): Promise<number> {
    // Read again, not taken from the local lookup: what is counted next is at least this new, so
    // it may be shared under it, and a replica reading this version later may be given it.
    const current = await version()
    const sharedKey = `count:${createHash('sha256').update(`${identity}\n${key}`).digest('base64url')}`
    let remembered: string | null
    try {
      remembered = await store.get(sharedKey)
    } catch (error) {
      onError(error)
      return await compute()
    }
    const [at, total] = remembered?.split('\n') ?? []
    if (at === current) return Number(total)
    const counted = await compute()
    // Not awaited: the answer does not wait on the store; a lost write costs another replica a COUNT.
    store.set(sharedKey, `${current}\n${counted}`, 'PX', ttlMs).catch(onError)
    return counted
  }
}
