// The offset style's rules, on the pure builder: window, envelope, hint, parameters and schema.
import t from 'tap'
import { offsetEnvelope, offsetEnvelopeSchema, offsetStyle, offsetWindow, OFFSET_DEFAULTS } from '../../../src/paging/index.js'
import { validationErrors } from '../../helpers/ajv.js'
import { numbered, servedEnvelope } from '../../helpers/paging.js'

const ITEM = { type: 'integer' }
const style = offsetStyle({ unit: 'entries', ceiling: 500, defaultLimit: 50 })
const schema = style.schema(ITEM)

/** The envelope served of `total` items numbered from 0, which must match its schema (a test fails on a throw). */
async function serve (query: { offset?: number, limit?: number }, total: number): Promise<Record<string, unknown>> {
  return await servedEnvelope(style, ITEM, query, numbered(total))
}

t.test('a first page: the invariants, the resume field and a hint naming offset and its value', async (t) => {
  t.strictSame(await serve({}, 1240), {
    items: Array.from({ length: 50 }, (_, i) => i),
    has_more: true,
    total_entries: 1240,
    returned: 50,
    offset: 0,
    limit: 50,
    next_offset: 50,
    hint: 'Send offset=50 to get the next entries; repeat until has_more is false.'
  })
})

t.test('has_more counts offset + returned against the total, so next_offset always moves on', async (t) => {
  const body = await serve({ offset: 1200, limit: 30 }, 1240)
  t.equal(body.has_more, true)
  t.equal(body.next_offset, 1230)
  t.equal(body.hint, 'Send offset=1230 to get the next entries; repeat until has_more is false.')
})

t.test('the exact end (offset + limit == total): has_more false, no next_offset, no hint', async (t) => {
  t.strictSame(await serve({ offset: 1200, limit: 40 }, 1240), {
    items: Array.from({ length: 40 }, (_, i) => 1200 + i),
    has_more: false,
    total_entries: 1240,
    returned: 40,
    offset: 1200,
    limit: 40
  })
})

t.test('an offset at or past the end: an empty page, has_more false, the offset echoed', async (t) => {
  for (const offset of [1240, 1241, 99999]) {
    t.strictSame(await serve({ offset }, 1240), { items: [], has_more: false, total_entries: 1240, returned: 0, offset, limit: 50 }, `offset ${offset}`)
  }
})

t.test('an empty list is one empty page with nothing more', async (t) => {
  t.strictSame(await serve({}, 0), { items: [], has_more: false, total_entries: 0, returned: 0, offset: 0, limit: 50 })
})

t.test('a limit at the ceiling is not a clamp: limit_clamped is absent, not false', async (t) => {
  const body = await serve({ limit: 500 }, 1240)
  t.equal(body.limit, 500)
  t.notOk('limit_clamped' in body)
  t.equal(body.hint, 'Send offset=500 to get the next entries; repeat until has_more is false.')
})

t.test('a limit over the ceiling is served at it and disclosed, the clamp clause after the resume clause', async (t) => {
  const body = await serve({ limit: 501 }, 1240)
  t.equal(body.limit, 500)
  t.equal(body.returned, 500)
  t.equal(body.limit_clamped, true)
  t.equal(body.next_offset, 500)
  t.equal(body.hint, 'Send offset=500 to get the next entries; repeat until has_more is false; limit was clamped to the maximum of 500.')
})

t.test('a clamped request that fits in one page carries the clamp clause alone', async (t) => {
  t.strictSame(await serve({ offset: 1000, limit: 1000 }, 1240), {
    items: Array.from({ length: 240 }, (_, i) => 1000 + i),
    has_more: false,
    total_entries: 1240,
    returned: 240,
    offset: 1000,
    limit: 500,
    limit_clamped: true,
    hint: 'limit was clamped to the maximum of 500.'
  })
})

t.test('a clamped request past the end still discloses the clamp', async (t) => {
  const body = await serve({ offset: 2000, limit: 501 }, 1240)
  t.strictSame([body.returned, body.has_more, body.limit_clamped, body.hint], [0, false, true, 'limit was clamped to the maximum of 500.'])
})

t.test('offsetWindow: the offset as sent, the limit bounded, the clamp only for a limit that was sent', async (t) => {
  t.strictSame(offsetWindow(undefined, undefined, 10, 500), { offset: 0, limit: OFFSET_DEFAULTS.defaultLimit, total: 10, clamped: false })
  t.strictSame(offsetWindow(7, 3, 10, 500, 20), { offset: 7, limit: 3, total: 10, clamped: false })
  t.strictSame(offsetWindow(0, 9, 10, 5), { offset: 0, limit: 5, total: 10, clamped: true })
  t.strictSame(offsetWindow(0, undefined, 10, 5, 50), { offset: 0, limit: 5, total: 10, clamped: false }, 'the ceiling bounds the default, silently')
})

t.test('the defaults: a limit of 50 under a ceiling of 100', async (t) => {
  const plain = offsetStyle({ unit: 'rows' })
  t.strictSame(plain.window({}, 1000), { offset: 0, limit: OFFSET_DEFAULTS.defaultLimit, total: 1000, clamped: false })
  t.strictSame(plain.window({ limit: 1000 }, 1000), { offset: 0, limit: OFFSET_DEFAULTS.ceiling, total: 1000, clamped: true })
  t.equal(OFFSET_DEFAULTS.defaultLimit, 50)
  t.equal(OFFSET_DEFAULTS.ceiling, 100)
})

t.test('the parameters: offset from 0, limit from 1 with no maximum (clamp, don\'t reject)', async (t) => {
  const { offset, limit } = style.parameters as Record<string, Record<string, unknown>>
  t.match(offset, { type: 'integer', minimum: 0, description: /Default: 0\.$/ })
  t.match(limit, { type: 'integer', minimum: 1, description: /Default: 50\.$/ })
  t.notOk('default' in offset || 'default' in limit, 'no default keyword: a generated client would send it on every plain call')
  t.equal(limit.maximum, Number.MAX_SAFE_INTEGER, 'no maximum but the largest exact integer: more than the ceiling is clamped, not refused')
  t.match(limit.description, /500/)
  t.match((offsetStyle({ unit: 'entries', ceiling: 10, defaultLimit: 50 }).parameters.limit as { description?: unknown }).description, /Default: 10\.$/, 'the documented default is the one served')
})

t.test('the schema: the unit names the total; the optional fields are optional', async (t) => {
  t.strictSame(schema.required, ['items', 'has_more', 'total_entries', 'returned', 'offset', 'limit'])
  t.strictSame(Object.keys(schema.properties ?? {}), ['items', 'has_more', 'total_entries', 'returned', 'offset', 'limit', 'next_offset', 'limit_clamped', 'hint'])
  for (const [name, property] of Object.entries(schema.properties ?? {})) t.type(property.description, 'string', `${name} is described`)
  t.strictSame(offsetEnvelopeSchema(ITEM, 'matches', 100).required, ['items', 'has_more', 'total_matches', 'returned', 'offset', 'limit'])
})

t.test('the schema refuses a half-formed envelope and a limit_clamped of false', async (t) => {
  const whole = offsetEnvelope([1], { unit: 'entries', total: 1, offset: 0, limit: 50 })
  t.strictSame(validationErrors(schema, whole), [])
  for (const name of schema.required ?? []) {
    const { [name]: _, ...partial } = whole
    t.not(validationErrors(schema, partial).length, 0, `without ${name}`)
  }
  t.not(validationErrors(schema, { ...whole, limit_clamped: false }).length, 0)
})

t.test('misdeclared options are refused at registration', async (t) => {
  t.throws(() => offsetStyle({ unit: 'Entries' }), new RangeError('unit must be a lower-case noun such as "entries"; got "Entries".'))
  t.throws(() => offsetStyle({ unit: 'total entries' }), RangeError)
  t.throws(() => offsetStyle({ unit: 'entries', ceiling: 0 }), new RangeError('ceiling must be a positive integer; got 0.'))
  t.throws(() => offsetStyle({ unit: 'entries', ceiling: 2.5 }), RangeError)
  t.throws(() => offsetStyle({ unit: 'entries', defaultLimit: -1 }), new RangeError('defaultLimit must be a positive integer; got -1.'))
})
