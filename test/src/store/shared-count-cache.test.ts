// The shared count cache on its own: replicas (two caches over one store) count a version once
// between them, never across identities, and a failing store only costs a COUNT.
import t from 'tap'
import { DEFAULT_SHARED_TTL_MS, sharedCountCache, type TotalsStore } from '../../../src/store/shared-count-cache.js'

/**
 * A store in a Map, recording what it was asked; `failing` makes its commands reject; `landed`
 * settles once every write so far has, and the cache, which does not wait for them, has heard how.
 */
function mapStore () {
  const entries = new Map<string, string>()
  const calls: string[] = []
  const expiries: number[] = []
  const writes: Array<Promise<void>> = []
  let failing: 'get' | 'set' | undefined
  const store: TotalsStore = {
    get: async (key) => {
      calls.push('get')
      if (failing === 'get') throw new Error('Redis gone')
      return entries.get(key) ?? null
    },
    // The very promise the cache is given, so that its handler, attached first, has run by `landed`.
    set: (key, value, _mode, milliseconds) => {
      const write = (async () => {
        calls.push('set')
        expiries.push(milliseconds)
        if (failing === 'set') throw new Error('Redis gone')
        entries.set(key, value)
      })()
      writes.push(write)
      return write
    }
  }
  const landed = async () => { await Promise.allSettled(writes) }
  return { store, entries, calls, expiries, landed, fail: (command?: 'get' | 'set') => { failing = command } }
}

/** Replicas over one store and one version of the data; counts say which replica counted. */
function replicas (shared = mapStore(), identities = ['cluster/db/user/public', 'cluster/db/user/public'], ttlMs?: number) {
  // A snapshot's text, xmin:xmax:, moved on by each commit.
  let xid = 10
  const counted: string[] = []
  const errors: unknown[] = []
  const caches = identities.map((identity) => sharedCountCache({ version: async () => `${xid}:${xid}:`, store: shared.store, identity, onError: (error) => { errors.push(error) }, ttlMs }))
  const count = (replica: number, key: string, total: number) => caches[replica].count(key, async () => {
    counted.push(`${replica}:${key}`)
    return total
  })
  return { shared, counted, errors, count, commit: () => { xid++ } }
}

t.test('one replica counts, the other is given its total', async (t) => {
  const { shared, counted, count } = replicas()
  t.equal(await count(0, 'books', 3), 3)
  await shared.landed()
  t.equal(await count(1, 'books', 99), 3, 'the total counted by the other replica')
  t.strictSame(counted, ['0:books'])
})

t.test('a replica\'s second lookup is answered from its memory: the store is not asked again', async (t) => {
  const { shared, count } = replicas()
  await count(0, 'books', 3)
  await count(0, 'books', 3)
  t.strictSame(shared.calls, ['get', 'set'])
})

t.test('a new version is counted again, once, and replaces the old total in the store', async (t) => {
  const { shared, counted, count, commit } = replicas()
  await count(0, 'books', 3)
  await shared.landed()
  commit()
  t.equal(await count(1, 'books', 4), 4)
  await shared.landed()
  t.equal(await count(0, 'books', 99), 4)
  t.strictSame(counted, ['0:books', '1:books'])
  t.equal(shared.entries.size, 1, 'one entry per count, whatever the number of versions')
  t.match([...shared.entries.values()][0], /^11:11:\n4$/)
})

t.test('each count has its own entry', async (t) => {
  const { shared, counted, count } = replicas()
  await count(0, 'books', 3)
  await count(0, 'ledger', 1240)
  await shared.landed()
  t.strictSame([await count(1, 'books', 0), await count(1, 'ledger', 0)], [3, 1240])
  t.strictSame(counted, ['0:books', '0:ledger'])
})

t.test('stores of different identities never share a total, though their SQL and version agree', async (t) => {
  const { shared, counted, count } = replicas(mapStore(), ['cluster/db/user/tenant_a', 'cluster/db/user/tenant_b'])
  t.equal(await count(0, 'books', 3), 3)
  await shared.landed()
  t.equal(await count(1, 'books', 7), 7)
  t.strictSame(counted, ['0:books', '1:books'])
})

t.test('totals expire from the store after ten minutes by default, or as configured', async (t) => {
  const first = replicas()
  await first.count(0, 'books', 3)
  t.strictSame(first.shared.expiries, [DEFAULT_SHARED_TTL_MS])
  t.equal(DEFAULT_SHARED_TTL_MS, 600_000)
  const second = replicas(mapStore(), undefined, 5000)
  await second.count(0, 'books', 3)
  t.strictSame(second.shared.expiries, [5000])
})

t.test('a store that fails to answer: told, and the total is counted here', async (t) => {
  const { shared, counted, errors, count } = replicas()
  shared.fail('get')
  t.equal(await count(0, 'books', 3), 3)
  t.strictSame(counted, ['0:books'])
  t.match(errors, [{ message: 'Redis gone' }])
  t.strictSame(shared.calls, ['get'], 'nothing written to a store that does not answer')
})

t.test('a store that fails to remember: told, and the answer does not wait on it', async (t) => {
  const { shared, errors, count } = replicas()
  shared.fail('set')
  t.equal(await count(0, 'books', 3), 3)
  await shared.landed()
  t.match(errors, [{ message: 'Redis gone' }])
  shared.fail(undefined)
  t.equal(await count(1, 'books', 5), 5, 'the other replica counts for itself')
})
