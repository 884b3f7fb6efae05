import t from 'tap'
import { ASKED_NAMES, frozenWhole, servedCache, weight, type KeptAnswer, type KeptOutcome } from '../../../src/core/served-cache.js'

const page = (rows: number): KeptAnswer => ({ kind: 'page', body: { items: Array.from({ length: rows }, (_, id) => ({ id })) }, rows })
/** A plain list of exactly `bytes` bytes. */
const list = (bytes: number): KeptAnswer => ({ kind: 'list', bytes: Buffer.alloc(bytes, 'x'), rows: 1 })

t.test('an answer kept is found by its key, in its own scope only', async (t) => {
  const cache = servedCache({ maxBytes: 800 })
  const books = cache.scope()
  const ledger = cache.scope()
  const answer = page(2)
  books.set('v1', answer)
  t.equal(books.get('v1'), answer)
  t.equal(books.get('v2'), undefined, 'another key')
  t.equal(ledger.get('v1'), undefined, 'another mount\'s scope')
  t.equal(books.maxEntryBytes, 100, 'an eighth of the whole')
})

t.test('a plain list weighs its bytes; an envelope three times its JSON', async (t) => {
  t.equal(weight(list(40)), 40)
  const envelope = page(2)
  t.equal(weight(envelope), 3 * JSON.stringify((envelope as { body: unknown }).body).length)
})

t.test('an answer heavier than an eighth of the whole, or of no weight, is not kept', async (t) => {
  const answers = servedCache({ maxBytes: 800 }).scope()
  answers.set('large', list(101))
  t.equal(answers.get('large'), undefined)
  answers.set('empty', list(0))
  t.equal(answers.get('empty'), undefined)
  answers.set('fits', list(100))
  t.ok(answers.get('fits'))
  // {"items":[{"id":0},...]} of 5 rows is 56 characters: 168 bytes as weighed.
  answers.set('envelope', page(5))
  t.equal(answers.get('envelope'), undefined, 'an envelope is weighed as it lives, not as its JSON')
})

t.test('past the whole, the least recently used answer goes first', async (t) => {
  const answers = servedCache({ maxBytes: 800 }).scope()
  for (let i = 0; i < 8; i++) answers.set(`v${i}`, list(100))
  // Used: v0 is now the most recent, v1 the least.
  t.ok(answers.get('v0'))
  answers.set('v8', list(100))
  t.equal(answers.get('v1'), undefined, 'the least recently used went')
  t.ok(answers.get('v0'), 'the one just used stayed')
  t.ok(answers.get('v8'))
})

t.test('every lookup is told: a hit or a miss', async (t) => {
  const told: KeptOutcome[] = []
  const answers = servedCache({ maxBytes: 800, onLookup: (outcome) => { told.push(outcome) } }).scope()
  answers.get('v1')
  answers.set('v1', list(10))
  answers.get('v1')
  t.strictSame(told, ['miss', 'hit'])
})

t.test('a size that is not a whole number of bytes from 8 is refused', async (t) => {
  for (const maxBytes of [0, 7, 1.5, -8, Number.NaN, 2 ** 53]) {
    t.throws(() => servedCache({ maxBytes }), RangeError, String(maxBytes))
  }
})

t.test('an answer is frozen whole: every object and array in it, however deep', async (t) => {
  const body = { items: [{ id: 1, tags: ['a'], price: { amount: '9.99' } }], page: 1, next: null }
  t.equal(frozenWhole(body), body, 'the same value')
  for (const value of [body, body.items, body.items[0], body.items[0].tags, body.items[0].price]) t.ok(Object.isFrozen(value))
  t.equal(frozenWhole(3), 3)
  t.equal(frozenWhole(null), null)
})

t.test('an answer is worth keeping from the second miss of its key, in its own scope', async (t) => {
  const cache = servedCache({ maxBytes: 800 })
  const books = cache.scope()
  const ledger = cache.scope()
  t.equal(books.wants('v1'), false, 'never asked')
  t.equal(books.get('v1'), undefined)
  t.equal(books.wants('v1'), false, 'asked once: a walk\'s page, a filter tried once')
  t.equal(ledger.get('v1'), undefined)
  t.equal(ledger.wants('v1'), false, 'another mount\'s key of the same name is its own')
  t.equal(books.get('v1'), undefined)
  t.equal(books.wants('v1'), true, 'asked again')
  books.set('v1', list(10))
  t.ok(books.get('v1'), 'then served as kept')
})

t.test('the names asked once are bounded: the least recently asked is forgotten first', async (t) => {
  const answers = servedCache({ maxBytes: 800 }).scope()
  answers.get('first')
  for (let i = 0; i < ASKED_NAMES; i++) answers.get(`other-${i}`)
  answers.get('first')
  t.equal(answers.wants('first'), false, 'forgotten before its second ask: that ask counts as a first')
  answers.get('first')
  t.equal(answers.wants('first'), true)
  answers.get(`other-${ASKED_NAMES - 1}`)
  t.equal(answers.wants(`other-${ASKED_NAMES - 1}`), true, 'one asked lately is remembered')
})
