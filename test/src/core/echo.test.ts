// What a problem quotes of what a client sent: whole when short, else bounded and saying how long it was.
import t from 'tap'
import { echoed, echoedList, MAX_ECHOED_CHARACTERS, MAX_ECHOED_NAMES } from '../../../src/core/echo.js'

t.test('a short text is quoted whole; a long one by its start and its length', async (t) => {
  t.equal(echoed('limit'), 'limit')
  const edge = 'a'.repeat(MAX_ECHOED_CHARACTERS)
  t.equal(echoed(edge), edge, 'at the bound, whole')
  t.equal(echoed(`${edge}b`), `${edge}… (${MAX_ECHOED_CHARACTERS + 1} characters)`)
})

t.test('the cut never splits a surrogate pair', async (t) => {
  // An emoji (two code units) straddling the bound: it is left out whole.
  const text = `${'a'.repeat(MAX_ECHOED_CHARACTERS - 1)}😀tail`
  const quoted = echoed(text)
  t.equal(quoted, `${'a'.repeat(MAX_ECHOED_CHARACTERS - 1)}… (${text.length} characters)`)
  t.notMatch(quoted, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone surrogate')
})

t.test('a list names its first names, then how many more', async (t) => {
  t.equal(echoedList(['a', 'b']), 'a, b')
  const names = Array.from({ length: MAX_ECHOED_NAMES + 3 }, (_, i) => `n${i}`)
  t.equal(echoedList(names), `${names.slice(0, MAX_ECHOED_NAMES).join(', ')} and 3 more`)
  t.equal(echoedList(['x'], (name) => JSON.stringify(name)), '"x"', 'quoted as asked')
})
