// The row check's date-time against ajv-formats' full `date-time`, the check it stands in for: the
// same answer for every string, on hand-picked edges and on generated near-timestamps (fast-check).
import { fullFormats } from 'ajv-formats/dist/formats.js'
import fc from 'fast-check'
import t from 'tap'
import { validators } from '../../../../src/core/validators.js'
import { isDateTime } from '../../../../src/sources/upstream/date-time.js'
import { rowReader } from '../../../../src/sources/upstream/rows.js'
import Type from 'typebox'
import { propertyRuns, propertySeed } from '../../../helpers/fast-check.js'

const SEED = propertySeed(7_2026)
const NUM_RUNS = propertyRuns(20_000)
const theirs = (fullFormats['date-time'] as { validate: (text: string) => boolean }).validate

const EDGES = [
  '2026-01-01T00:00:00Z', '2026-01-01t00:00:00z', '2026-01-01 00:00:00Z', '2026-01-01\t00:00:00Z', '2026-01-01\u00a000:00:00Z',
  '2026-01-01\u202800:00:00Z', '2026-01-01x00:00:00Z', '2026-01-01TT00:00:00Z', '2026-01-01T00:00:00', '2026-01-01T00:00:00+05',
  '2026-01-01T00:00:00+0530', '2026-01-01T00:00:00+05:30', '2026-01-01T00:00:00-05:30', '2026-01-01T00:00:00+05:3', '2026-01-01T00:00:00+053',
  '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00+23:60', '2026-01-01T00:00:00+05030', '2026-01-01T00:00:00+0a:00', '2026-01-01T00:00:00ZZ',
  '2026-01-01T00:00:00.5Z', '2026-01-01T00:00:00.Z', '2026-01-01T00:00:00.123456789Z', '2026-01-01T00:00:00,5Z',
  '2026-02-29T00:00:00Z', '2024-02-29T00:00:00Z', '2000-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-12-31T00:00:00Z',
  '2026-00-10T00:00:00Z', '2026-13-10T00:00:00Z', '2026-01-00T00:00:00Z', '2026-01-32T00:00:00Z', '0000-01-01T00:00:00Z',
  '2026-01-01T24:00:00Z', '2026-01-01T23:60:00Z', '2026-12-31T23:59:60Z', '2026-12-31T23:59:60.999Z', '2026-12-31T23:59:61Z',
  '2026-12-31T22:59:60Z', '2026-12-31T18:59:60-05:00', '2027-01-01T00:59:60+01:00', '2027-01-01T00:29:60+00:30', '2026-12-31T23:29:60-00:30',
  '2026-01-01T00:00:59.99999999999999999Z', '2026-12-31T23:59:60.99999999999999999Z', '2026-01-01T99:99:99Z',
  '26-01-01T00:00:00Z', '20260-01-01T00:00:00Z', '2026/01/01T00:00:00Z', '2026-01-01T00-00-00Z', '2026-1-01T00:00:00Z', '２０２６-01-01T00:00:00Z',
  '2026-01-01T00:00:00.12345678901234567890123Q', '2026-01-01T00:00:00.12345678901234567890123+05:30', '', 'now', '2026-01-01', '2026-01-01T00:00Z', ' 2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z\n'
]

t.test('the same answer as ajv-formats on every edge', async (t) => {
  for (const text of EDGES) t.equal(isDateTime(text), theirs(text), JSON.stringify(text).replace(/[^ -~]/g, '?'))
  t.equal(isDateTime('2026-01-01T00:00:00Z'), true, 'and the common case holds')
})

t.test('the same answer as ajv-formats on generated near-timestamps', async (t) => {
  const digits = (count: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: count, maxLength: count }).map((list) => list.join(''))
  const pick = (values: string[], arbitrary = digits(2)) => fc.oneof(fc.constantFrom(...values), arbitrary)
  const stamp = fc.tuple(
    pick(['2026', '2024', '2000', '1900', '0000', '26'], digits(4)), pick(['-', '/', '']), pick(['01', '02', '12', '13', '00', '1']), pick(['-']),
    pick(['01', '28', '29', '30', '31', '32', '00']), pick(['T', 't', ' ', '\t', 'x', '', 'TT', '\u3000'], fc.constant('T')),
    pick(['00', '23', '24', '18']), pick([':', '-']), pick(['00', '59', '60', '29']), pick([':', '']), pick(['00', '59', '60', '61', '5']),
    fc.oneof(fc.constant(''), fc.constantFrom('.', '.5', '.999', '.99999999999999999', ','), digits(3).map((d) => `.${d}`)),
    fc.oneof(fc.constantFrom('Z', 'z', '', 'ZZ', '+05', '-05', '+0530', '+05:30', '-00:30', '+24:00', '+23:60', '+05:3', '+053', '+05030', '-01:00', '+1'), fc.string({ maxLength: 3 }))
  ).map((parts) => parts.join(''))
  const mutated = fc.tuple(stamp, fc.nat(30), fc.string({ maxLength: 2 })).map(([text, at, insert]) => text.slice(0, at) + insert + text.slice(at + insert.length))
  fc.assert(fc.property(fc.oneof(stamp, mutated, fc.string({ maxLength: 45 })), (text) => isDateTime(text) === theirs(text)), { seed: SEED, numRuns: NUM_RUNS })
  t.pass(`${NUM_RUNS} strings (FC_SEED ${SEED})`)
})

t.test('the row check uses it, and still names a timestamp that is not one', async (t) => {
  const read = rowReader(Type.Object({ at: Type.String({ format: 'date-time' }) }), {}, { origin: 'http://upstream.test' }, validators().rows)({ url: new URL('http://upstream.test/items'), log: undefined })
  t.strictSame(read({ at: '2026-12-31T23:59:60Z' }), { at: '2026-12-31T23:59:60Z' })
  t.throws(() => read({ at: '2026-02-29T00:00:00Z' }), /: at must match format "date-time"\./)
})
