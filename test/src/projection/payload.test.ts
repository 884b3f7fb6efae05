import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import t from 'tap'
import Type from 'typebox'
import { choices, Decimal, defineFormatter, formatted, handle, hidden, label, Nullable, timestamp } from '../../../src/declare/index.js'
import { withFieldInfo } from '../../../src/declare/field-info.js'
import { buildProjection, projectPayload } from '../../../src/projection/index.js'
import { deepFreeze } from '../../helpers/freeze.js'

const euros = defineFormatter({ render: (value) => `EUR ${String(value)}`, produces: 'string' })
const PRIORITIES = [[1, 'Low'], [2, 'High']] as const

/** Projects `value` by a one-field record declared as `field`. */
function projectField (field: Parameters<typeof Type.Object>[0][string], value: unknown): unknown {
  const projection = buildProjection(Type.Object({ field }), { name: 'test' })
  return (projectPayload(deepFreeze({ field: value }), projection) as Record<string, unknown>).field
}

function keysOf (field: Parameters<typeof Type.Object>[0][string], value: unknown): string[] {
  const projection = buildProjection(Type.Object({ field, other: hidden(Type.String()) }), { name: 'test' })
  return Object.keys(projectPayload(deepFreeze({ field: value, other: 'x' }), projection) as object)
}

t.test('content is served unchanged', async (t) => {
  t.equal(projectField(Type.String(), 'hi'), 'hi')
})

t.test('a handle is served as stored', async (t) => {
  t.equal(projectField(handle(Type.Integer()), 7), 7)
})

t.test('a label is served unchanged', async (t) => {
  t.equal(projectField(label(Type.String(), 'The name.'), 'Ada'), 'Ada')
})

t.test('a hidden field\'s key is removed', async (t) => {
  t.strictSame(keysOf(Type.String(), 'x'), ['field'])
  const projection = buildProjection(Type.Object({ id: Type.Integer(), secret: hidden(Type.String()) }), { name: 'test' })
  t.strictSame(projectPayload(deepFreeze({ id: 1, secret: 'x' }), projection), { id: 1 })
})

t.test('a formatted field is rendered', async (t) => {
  t.equal(projectField(formatted(Decimal(), euros), '9.99'), 'EUR 9.99')
})

t.test('a timestamp is rendered with its format, the default one unless told', async (t) => {
  t.equal(projectField(timestamp(Type.String({ format: 'date-time' })), '2026-01-31T13:05:09Z'), '31 Jan 2026 13:05 +00:00')
  t.equal(projectField(timestamp(Type.String({ format: 'date' }), { format: 'dd LLLL yyyy' }), '1974-05-01'), '01 May 1974')
})

t.test('render receives the presented value: a decimal as its string, a date as its ISO string', async (t) => {
  const seen: unknown[] = []
  const spy = defineFormatter({ render: (value) => { seen.push(value); return 'seen' }, produces: 'string' })
  const projection = buildProjection(Type.Object({ price: formatted(Decimal(), spy), on: formatted(Type.String({ format: 'date' }), spy) }), { name: 'test' })
  t.strictSame(projectPayload(deepFreeze({ price: '9.99', on: '1974-05-01' }), projection), { price: 'seen', on: 'seen' })
  t.strictSame(seen, ['9.99', '1974-05-01'])
})

t.test('a null passes through a formatter unformatted; render never sees it', async (t) => {
  const refusing = defineFormatter({ render: () => { throw new Error('render saw null') }, produces: 'string' })
  t.equal(projectField(formatted(Nullable(Type.String()), refusing), null), null)
  t.equal(projectField(timestamp(Nullable(Type.String({ format: 'date' }))), null), null)
})

t.test('an absent value passes through a formatter too', async (t) => {
  const refusing = defineFormatter({ render: () => { throw new Error('render saw undefined') }, produces: 'string' })
  t.equal(projectField(formatted(Type.Optional(Type.String()), refusing), undefined), undefined)
})

t.test('a nested record is projected', async (t) => {
  const field = Type.Object({ name: label(Type.String()), secret: hidden(Type.String()), tier: choices(PRIORITIES) })
  t.strictSame(projectField(field, { name: 'Ada', secret: 'x', tier: 2 }), { name: 'Ada', tier: 'High' })
})

t.test('each record of an array of records is projected', async (t) => {
  const field = Type.Array(Type.Object({ sku: Type.String(), cost: hidden(Type.String()) }))
  t.strictSame(projectField(field, [{ sku: 'S1', cost: '1' }, { sku: 'S2', cost: '2' }]), [{ sku: 'S1' }, { sku: 'S2' }])
})

t.test('a null nested record passes through', async (t) => {
  t.equal(projectField(Nullable(Type.Object({ secret: hidden(Type.String()) })), null), null)
  t.strictSame(projectField(Nullable(Type.Object({ secret: hidden(Type.String()) })), { secret: 'x' }), {})
  t.equal(projectField(Type.Array(Type.Object({ secret: hidden(Type.String()) })), null), null)
})

t.test('a choice is spoken: its stored value is replaced by its display', async (t) => {
  t.equal(projectField(choices(PRIORITIES), 1), 'Low')
  t.equal(projectField(choices({ draft: 'Draft', published: 'Published' }), 'published'), 'Published')
})

t.test('displays are looked up by raw value: 1, "1", true and null differ', async (t) => {
  const field = choices([[1, 'One'], ['1', 'String one'], [true, 'Yes'], [null, 'Unknown']])
  t.strictSame([1, '1', true, null, 'true', false, 0].map((value) => projectField(field, value)), ['One', 'String one', 'Yes', 'Unknown', 'true', false, 0])
})

t.test('a null with a display is spoken', async (t) => {
  t.equal(projectField(choices([[1, 'Low'], [null, 'Unknown']]), null), 'Unknown')
})

t.test('a null without a display passes through', async (t) => {
  t.equal(projectField(choices(PRIORITIES, { nullable: true }), null), null)
})

t.test('an unknown value passes through unchanged', async (t) => {
  t.equal(projectField(choices(PRIORITIES), 3), 3)
  t.equal(projectField(choices(PRIORITIES), '1'), '1')
})

t.test('a choice whose display equals its value is served as it is', async (t) => {
  t.equal(projectField(choices([['a', 'a'], ['b', 'Bee']]), 'a'), 'a')
  t.equal(projectField(choices([['a', 'a'], ['b', 'b']]), 'b'), 'b')
})

t.test('an array of choices is spoken member by member', async (t) => {
  const field = Type.Array(choices([[1, 'Low'], [2, 'High'], [null, 'Unknown']]))
  t.strictSame(projectField(field, [2, 1, 3, null, 2]), ['High', 'Low', 3, 'Unknown', 'High'])
  t.strictSame(projectField(Type.Array(choices(PRIORITIES, { nullable: true })), [1, null]), ['Low', null])
})

t.test('a null array of choices passes through, even when null has a display', async (t) => {
  t.equal(projectField(Nullable(Type.Array(choices([[1, 'Low'], [null, 'Unknown']]))), null), null)
})

t.test('a list field holding no list passes through unchanged', async (t) => {
  t.equal(projectField(Type.Array(choices(PRIORITIES)), 1), 1)
  t.strictSame(projectField(Type.Array(Type.Object({ secret: hidden(Type.String()) })), { secret: 'x' }), { secret: 'x' })
})

t.test('a record field holding something else passes through unchanged', async (t) => {
  const field = Type.Object({ secret: hidden(Type.String()) })
  t.strictSame(projectField(field, [{ secret: 'x' }]), [{ secret: 'x' }])
  t.equal(projectField(field, 'x'), 'x')
})

t.test('keys no declaration mentions pass through whole', async (t) => {
  const projection = buildProjection(Type.Object({ secret: hidden(Type.String()) }), { name: 'test' })
  const affordances = { refund: { available: false, code: 'not_paid', reason: 'Only a paid invoice can be refunded.' } }
  const row = deepFreeze({ secret: 'x', affordances, extra: [1, { a: 2 }] })
  const projected = projectPayload(row, projection) as Record<string, unknown>
  t.strictSame(projected, { affordances, extra: [1, { a: 2 }] })
  t.equal(projected.affordances, affordances)
  t.equal(projected.extra, row.extra)
})

t.test('only a row\'s own keys are served', async (t) => {
  const projection = buildProjection(Type.Object({ secret: hidden(Type.String()) }), { name: 'test' })
  const row = deepFreeze(Object.assign(Object.create({ inherited: 1 }) as object, { id: 1, secret: 'x' }))
  t.strictSame(projectPayload(row, projection), { id: 1 })
})

t.test('a list is projected row by row, in order', async (t) => {
  const projection = buildProjection(Type.Object({ id: Type.Integer(), secret: hidden(Type.String()) }), { name: 'test' })
  t.strictSame(projectPayload(deepFreeze([{ id: 1, secret: 'a' }, { id: 2, secret: 'b' }]), projection), [{ id: 1 }, { id: 2 }])
  t.strictSame(projectPayload([], projection), [])
})

t.test('a list of records of several shapes is projected as each record is alone, key for key and in order', async (t) => {
  const projection = buildProjection(Type.Object({
    id: handle(Type.Integer()),
    secret: hidden(Type.String()),
    price: formatted(Decimal(), euros),
    priority: choices(PRIORITIES)
  }), { name: 'test' })
  const key = fc.constantFrom('id', 'secret', 'price', 'priority', 'extra', 'a"b', '1', '__proto__')
  const value = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant(null), fc.string({ maxLength: 3 }))
  // JSON.parse makes `__proto__` an own key, as a row read from JSON may have it.
  const row = fc.uniqueArray(fc.tuple(key, value), { selector: ([name]) => name, maxLength: 6 })
    .map((entries) => JSON.parse(`{${entries.map(([name, held]) => `${JSON.stringify(name)}:${JSON.stringify(held)}`).join(',')}}`) as unknown)
  const list = fc.array(fc.oneof({ weight: 8, arbitrary: row }, { weight: 1, arbitrary: fc.constantFrom(null, 'x', [1]) }), { maxLength: 12 })
  fc.assert(fc.property(list, (rows) => {
    const frozen = deepFreeze(rows)
    const projected = projectPayload(frozen, projection) as unknown[]
    const alone = frozen.map((item) => projectPayload(item, projection))
    return JSON.stringify(projected) === JSON.stringify(alone) && isDeepStrictEqual(projected, alone) &&
      projected.every((item, i) => typeof item !== 'object' || item === null || Object.getPrototypeOf(item) === Object.getPrototypeOf(alone[i]))
  }), { seed: 31_2026, numRuns: 300 })
  t.pass('every drawn list was projected as its records alone')
})

t.test('what is not a record passes through', async (t) => {
  const projection = buildProjection(Type.Object({ secret: hidden(Type.String()) }), { name: 'test' })
  t.strictSame([null, 'x', 1].map((value) => projectPayload(value, projection)), [null, 'x', 1])
  t.strictSame(projectPayload(deepFreeze([null, [1], { secret: 'x' }]), projection), [null, [1], {}])
})

t.test('an empty projection returns the very same value', async (t) => {
  const projection = buildProjection(Type.Object({ id: Type.Integer(), name: label(Type.String()) }), { name: 'test' })
  const row = { id: 1, name: 'Ada' }
  const rows = [row]
  t.equal(projectPayload(row, projection), row)
  t.equal(projectPayload(rows, projection), rows)
})

t.test('a projection builds new objects and never writes to its input, at any depth', async (t) => {
  const projection = buildProjection(Type.Object({
    tags: Type.Array(choices(PRIORITIES)),
    lines: Type.Array(Type.Object({ cost: hidden(Type.String()) })),
    customer: Type.Object({ secret: hidden(Type.String()) })
  }), { name: 'test' })
  const row = deepFreeze({ tags: [1, 2], lines: [{ cost: '1', sku: 'S1' }], customer: { secret: 'x', name: 'Ada' } })
  const projected = projectPayload(row, projection) as typeof row
  t.strictSame(projected, { tags: ['Low', 'High'], lines: [{ sku: 'S1' }], customer: { name: 'Ada' } })
  t.not(projected, row)
  t.not(projected.tags, row.tags)
  t.not(projected.lines[0], row.lines[0])
  t.strictSame(row, { tags: [1, 2], lines: [{ cost: '1', sku: 'S1' }], customer: { secret: 'x', name: 'Ada' } })
})

t.test('precedence: hidden wins over everything it carries', async (t) => {
  t.strictSame(keysOf(hidden(formatted(choices(PRIORITIES), euros)), 1), [])
  t.strictSame(keysOf(hidden(Type.Object({ secret: hidden(Type.String()) })), { secret: 'x' }), [])
})

t.test('precedence: a formatter wins over a choice display, receiving the stored value', async (t) => {
  t.equal(projectField(formatted(choices(PRIORITIES), euros), 1), 'EUR 1')
})

t.test('precedence: a formatter wins over a nested projection, receiving the whole raw value', async (t) => {
  const json = defineFormatter({ render: (value) => JSON.stringify(value), produces: 'string' })
  t.equal(projectField(formatted(Type.Object({ secret: hidden(Type.String()), name: Type.String() }), json), { secret: 'x', name: 'Ada' }), '{"secret":"x","name":"Ada"}')
})

t.test('precedence: a nested projection wins over choice displays', async (t) => {
  const field = withFieldInfo(Type.Object({ secret: hidden(Type.String()) }), { displays: new Map([['x', 'Ex']]) })
  t.strictSame(projectField(field, { secret: 'x' }), {})
})

t.test('precedence: a handle is never formatted', async (t) => {
  const projection = buildProjection(Type.Object({ price: formatted(Decimal(), euros) }), { name: 'test', overrides: { price: { kind: 'handle' } } })
  t.strictSame(projectPayload(deepFreeze({ price: '9.99' }), projection), { price: '9.99' })
  t.equal(projectField(handle(formatted(Decimal(), euros)), '9.99'), '9.99')
})

t.test('precedence: a handle\'s choices are never spoken', async (t) => {
  t.equal(projectField(handle(choices(PRIORITIES)), 1), 1)
  t.strictSame(projectField(handle(Type.Array(choices(PRIORITIES))), [1, 2]), [1, 2])
})

t.test('precedence: a handle record is served whole', async (t) => {
  t.strictSame(projectField(handle(Type.Object({ secret: hidden(Type.String()) })), { secret: 'x' }), { secret: 'x' })
})

t.test('a label\'s choices are spoken and its records projected', async (t) => {
  t.equal(projectField(label(choices(PRIORITIES)), 2), 'High')
  t.strictSame(projectField(label(Type.Object({ secret: hidden(Type.String()) })), { secret: 'x' }), {})
})
