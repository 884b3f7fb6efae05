// upstreamPath: each argument one segment of the declared path, a dot segment refused naming it.
import fc from 'fast-check'
import t from 'tap'
import { DOT_SEGMENT, pathSegment, upstreamPath } from '../../../../src/sources/upstream/path.js'
import { propertyRuns, propertySeed } from '../../../helpers/fast-check.js'

const SEED = propertySeed(7_2026)
const NUM_RUNS = propertyRuns(2000)

t.test('a template is filled with each argument, percent-encoded', async (t) => {
  const path = upstreamPath('/item/{a}/x/{b}')
  t.equal(path({ a: 'SKU 1', b: 7 }), '/item/SKU%201/x/7')
  t.equal(path({ a: 'a/b?c#d', b: '...' }), '/item/a%2Fb%3Fc%23d/x/...')
  t.equal(upstreamPath('/plain')({}), '/plain', 'a template without parameters is itself')
})

/** What `build` throws, or undefined. */
function refusalOf (build: () => unknown): (Error & { errors?: unknown, statusCode?: number }) | undefined {
  try {
    build()
    return undefined
  } catch (error) {
    return error as Error & { errors?: unknown, statusCode?: number }
  }
}

t.test('a dot segment is refused naming its argument: a 400 problem', async (t) => {
  for (const value of ['.', '..']) {
    const error = refusalOf(() => upstreamPath('/item/{a}/x')({ a: value }))
    t.equal(error?.statusCode, 400, value)
    t.strictSame(error?.errors, { a: [DOT_SEGMENT] }, value)
    t.strictSame(refusalOf(() => pathSegment('sku', value))?.errors, { sku: [DOT_SEGMENT] }, value)
  }
  t.equal(pathSegment('sku', '...'), '...', 'three dots are a name, not a dot segment')
})

t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs (FC_RUNS)`)

t.test('whatever the argument, the URL built stays under the declared path, or the argument is refused', async (t) => {
  const path = upstreamPath('/item/{a}/x')
  // Strings of the characters a path plays with, and any strings at all.
  const tricky = fc.string({ unit: fc.constantFrom('.', '/', '\\', '%', '2', 'e', 'E', 'f', 'F', '?', '#', ';', ' ', 'a'), maxLength: 8 })
  fc.assert(fc.property(fc.oneof(tricky, fc.string(), fc.string({ unit: 'grapheme' })), (value) => {
    let built: string
    try {
      built = path({ a: value })
    } catch {
      return value === '.' || value === '..'
    }
    const url = new URL(built, 'http://upstream.test')
    const segments = url.pathname.split('/')
    return url.origin === 'http://upstream.test' && url.search === '' && url.hash === '' &&
      segments.length === 4 && segments[1] === 'item' && segments[3] === 'x' && decodeURIComponent(segments[2]) === value
  }), { seed: SEED, numRuns: NUM_RUNS })
  t.pass(`${NUM_RUNS} values`)
})
