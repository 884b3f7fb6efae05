// The page style's rules, on the pure builder: clamped at both ends, reported by serving it.
import t from 'tap'
import { PAGE_DEFAULTS, pageEnvelope, pageStyle, pageWindow } from '../../../src/paging/index.js'
import { validationErrors } from '../../helpers/ajv.js'
import { numbered, servedEnvelope } from '../../helpers/paging.js'

const ITEM = { type: 'integer' }
const style = pageStyle({ ceiling: 50 })
const schema = style.schema(ITEM)

/** The page the style serves of `total` items numbered from 0, which must match its schema (a test fails on a throw). */
async function serve (query: { page?: number, limit?: number }, total: number): Promise<Record<string, unknown>> {
  return await servedEnvelope(style, ITEM, query, numbered(total))
}

t.test('exactly four keys: items, page, totalPages, hasNext', async (t) => {
  t.strictSame(await serve({ page: 2, limit: 2 }, 3), { items: [2], page: 2, totalPages: 2, hasNext: false })
  t.strictSame(await serve({ page: 1, limit: 2 }, 3), { items: [0, 1], page: 1, totalPages: 2, hasNext: true })
})

t.test('limit defaults to 100, bounded by the ceiling', async (t) => {
  t.strictSame(PAGE_DEFAULTS, { ceiling: 100, defaultLimit: 100 })
  t.equal(pageWindow(undefined, undefined, 1000, 500).limit, 100)
  t.equal(pageWindow(undefined, undefined, 1000, 50).limit, 50)
  t.equal(pageWindow(undefined, undefined, 1000, 500, 20).limit, 20)
  t.match((style.parameters.limit as { description?: unknown }).description, /Default: 50\.$/, 'the documented default is the one served')
  t.notOk('default' in style.parameters.page || 'default' in style.parameters.limit, 'no default keyword: a generated client would send it on every plain call')
})

t.test('limit is clamped to [1, maxPageSize], and totalPages counted at the limit used', async (t) => {
  t.strictSame(pageWindow(1, 0, 3, 50), { page: 1, totalPages: 3, limit: 1, offset: 0 })
  t.strictSame(pageWindow(1, -5, 3, 50), { page: 1, totalPages: 3, limit: 1, offset: 0 })
  t.strictSame(pageWindow(1, 51, 120, 50), { page: 1, totalPages: 3, limit: 50, offset: 0 })
})

t.test('page is clamped to [1, totalPages] after counting: the page actually served', async (t) => {
  t.strictSame(pageWindow(0, 2, 3, 50), { page: 1, totalPages: 2, limit: 2, offset: 0 })
  t.strictSame(pageWindow(9, 2, 3, 50), { page: 2, totalPages: 2, limit: 2, offset: 2 })
  t.strictSame(await serve({ page: 1000000, limit: 2 }, 3), { items: [2], page: 2, totalPages: 2, hasNext: false })
})

t.test('an empty result is one empty page', async (t) => {
  t.strictSame(await serve({ page: 3 }, 0), { items: [], page: 1, totalPages: 1, hasNext: false })
})

t.test('the envelope builder reports hasNext from the page served', async (t) => {
  t.strictSame(pageEnvelope(['a'], { page: 1, totalPages: 2 }), { items: ['a'], page: 1, totalPages: 2, hasNext: true })
})

t.test('the schema: the four keys, all required', async (t) => {
  t.strictSame(schema.required, ['items', 'page', 'totalPages', 'hasNext'])
  t.strictSame(Object.keys(schema.properties ?? {}), ['items', 'page', 'totalPages', 'hasNext'])
  t.not(validationErrors(schema, { items: [], page: 1, totalPages: 1 }).length, 0)
})

t.test('a misdeclared ceiling is refused at registration', async (t) => {
  t.throws(() => pageStyle({ ceiling: 0 }), new RangeError('ceiling must be a positive integer; got 0.'))
})
