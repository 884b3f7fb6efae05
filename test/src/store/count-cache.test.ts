// The count cache on its own: totals remembered per version, shared while in flight, bounded.
import t from 'tap'
import { versionedCountCache } from '../../../src/store/count-cache.js'

/** A version the test moves by hand, and a COUNT that says how often it ran. */
function harness (maxEntries?: number) {
  let version = 1
  const cache = versionedCountCache({ version: async () => version, maxEntries })
  const runs: string[] = []
  const count = (key: string, total: number) => cache.count(key, async () => {
    runs.push(key)
    return total
  })
  return { cache, runs, count, bump: () => { version++ } }
}

t.test('a total is counted once while the version holds', async (t) => {
  const { runs, count } = harness()
  t.equal(await count('books', 3), 3)
  t.equal(await count('books', 99), 3, 'the remembered total, not a new count')
  t.strictSame(runs, ['books'])
})

t.test('a new version forgets every total', async (t) => {
  const { runs, count, bump } = harness()
  await count('books', 3)
  await count('ledger', 10)
  bump()
  t.equal(await count('books', 4), 4)
  t.equal(await count('ledger', 11), 11)
  t.strictSame(runs, ['books', 'ledger', 'books', 'ledger'])
})

t.test('concurrent lookups of one total share one count', async (t) => {
  const { runs, count } = harness()
  t.strictSame(await Promise.all([count('books', 3), count('books', 3), count('books', 3)]), [3, 3, 3])
  t.strictSame(runs, ['books'])
})

t.test('a failed count is not remembered', async (t) => {
  const { cache, runs, count } = harness()
  await t.rejects(cache.count('books', async () => { throw new Error('store gone') }), { message: 'store gone' })
  t.equal(await count('books', 3), 3)
  t.strictSame(runs, ['books'])
})

t.test('a count failing after its version passed leaves the newer total alone', async (t) => {
  const { cache, runs, count, bump } = harness()
  let fail: (error: Error) => void = () => {}
  let counting: () => void = () => {}
  const started = new Promise<void>((resolve) => { counting = resolve })
  const stale = cache.count('books', async () => await new Promise<number>((_resolve, reject) => {
    fail = reject
    counting()
  }))
  // The count has begun: its version was read before it, and is now an old one.
  await started
  bump()
  t.equal(await count('books', 4), 4)
  fail(new Error('store gone'))
  await t.rejects(stale, { message: 'store gone' })
  t.equal(await count('books', 99), 4, 'the newer total is still remembered')
  t.strictSame(runs, ['books'])
})

t.test('at most maxEntries totals are remembered, the oldest dropped first', async (t) => {
  const { runs, count } = harness(2)
  await count('a', 1)
  await count('b', 2)
  await count('c', 3)
  await count('c', 3)
  await count('b', 2)
  await count('a', 1)
  t.strictSame(runs, ['a', 'b', 'c', 'a'])
})

t.test('maxEntries must be a positive integer', async (t) => {
  for (const maxEntries of [0, -1, 1.5]) {
    t.throws(() => versionedCountCache({ version: async () => 1, maxEntries }), RangeError, String(maxEntries))
  }
})
