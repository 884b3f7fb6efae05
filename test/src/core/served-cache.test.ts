import t from 'tap'
import { servedCache, type KeptAnswer, type KeptOutcome } from '../../../src/core/served-cache.js'

const page = (rows: number): KeptAnswer => ({ kind: 'page', body: { items: Array.from({ length: rows }, (_, id) => ({ id })) }, rows })
const list = (text: string): KeptAnswer => ({ kind: 'list', bytes: Buffer.from(text), rows: 1 })

t.test('an answer kept is found by its key, in its own scope only', async (t) => {
  const cache = servedCache({ maxBytes: 800 })
  const books = cache.scope()
  const ledger = cache.scope()
  const answer = page(2)
  books.set('v1', answer, 40)
  t.equal(books.get('v1'), answer)
  t.equal(books.get('v2'), undefined, 'another key')
  t.equal(ledger.get('v1'), undefined, 'another mount\'s scope')
  t.equal(books.maxEntryBytes, 100, 'an eighth of the whole')
})

t.test('an answer larger than an eighth of the whole, or of no size, is not kept', async (t) => {
  const answers = servedCache({ maxBytes: 800 }).scope()
  answers.set('large', list('x'.repeat(101)), 101)
  t.equal(answers.get('large'), undefined)
  answers.set('empty', list(''), 0)
  t.equal(answers.get('empty'), undefined)
  answers.set('fits', list('x'.repeat(100)), 100)
  t.ok(answers.get('fits'))
})

t.test('past the whole, the least recently used answer goes first', async (t) => {
  const answers = servedCache({ maxBytes: 800 }).scope()
  for (let i = 0; i < 8; i++) answers.set(`v${i}`, page(1), 100)
  // Used: v0 is now the most recent, v1 the least.
  t.ok(answers.get('v0'))
  answers.set('v8', page(1), 100)
  t.equal(answers.get('v1'), undefined, 'the least recently used went')
  t.ok(answers.get('v0'), 'the one just used stayed')
  t.ok(answers.get('v8'))
})

t.test('every lookup is told: a hit or a miss', async (t) => {
  const told: KeptOutcome[] = []
  const answers = servedCache({ maxBytes: 800, onLookup: (outcome) => { told.push(outcome) } }).scope()
  answers.get('v1')
  answers.set('v1', page(1), 10)
  answers.get('v1')
  t.strictSame(told, ['miss', 'hit'])
})

t.test('a size that is not a whole number of bytes from 8 is refused', async (t) => {
  for (const maxBytes of [0, 7, 1.5, -8, Number.NaN, 2 ** 53]) {
    t.throws(() => servedCache({ maxBytes }), RangeError, String(maxBytes))
  }
})
