import t from 'tap'
import { choicesInDisplays } from '../../../src/projection/choices-in-displays.js'
import type { JsonSchema } from '../../../src/projection/index.js'
import { deepFreeze } from '../../helpers/freeze.js'

const PRIORITIES = new Map<unknown, string>([[1, 'Low'], [2, 'High']])
const STATUSES = new Map<unknown, string>([['PENDING_REVIEW', 'Awaiting review'], ['LEGACY_REVIEW', 'Awaiting review'], ['PAID', 'Paid']])

function restate (schema: JsonSchema, displays: ReadonlyMap<unknown, string>): ReturnType<typeof choicesInDisplays> {
  return choicesInDisplays(deepFreeze(schema), displays)
}

t.test('enum values become their displays', async (t) => {
  t.strictSame(restate({ type: 'integer', enum: [1, 2], description: 'How urgent.' }, PRIORITIES), {
    schema: { type: 'string', enum: ['Low', 'High'], description: 'How urgent.' },
    shrank: false
  })
})

t.test('oneOf constants become {const: display}, their titles dropped', async (t) => {
  t.strictSame(restate({ type: 'integer', oneOf: [{ const: 1, title: 'Low' }, { const: 2, title: 'High' }] }, PRIORITIES), {
    schema: { type: 'string', oneOf: [{ const: 'Low' }, { const: 'High' }] },
    shrank: false
  })
})

t.test('oneOf entries without a const stay in place', async (t) => {
  t.strictSame(restate({ oneOf: [{ const: 1, title: 'Low' }, { minimum: 5 }, { const: 2, title: 'High' }] }, PRIORITIES).schema, {
    oneOf: [{ const: 'Low' }, { minimum: 5 }, { const: 'High' }]
  })
})

t.test('a oneOf entry admitting more than constants keeps the stated type', async (t) => {
  t.strictSame(restate({ type: 'integer', oneOf: [{ const: 1, title: 'Low' }, { minimum: 5 }] }, PRIORITIES).schema, {
    type: 'integer', oneOf: [{ const: 'Low' }, { minimum: 5 }]
  })
})

t.test('anyOf members are restated one by one', async (t) => {
  t.strictSame(restate({ anyOf: [{ type: 'integer', enum: [1, 2] }, { type: 'null' }, { type: 'integer', oneOf: [{ const: 2, title: 'High' }] }] }, PRIORITIES), {
    schema: { anyOf: [{ type: 'string', enum: ['Low', 'High'] }, { type: 'null' }, { type: 'string', oneOf: [{ const: 'High' }] }] },
    shrank: false
  })
})

t.test('values sharing a display are listed once, first seen first', async (t) => {
  t.strictSame(restate({ type: 'string', enum: ['LEGACY_REVIEW', 'PAID', 'PENDING_REVIEW'] }, STATUSES), {
    schema: { type: 'string', enum: ['Awaiting review', 'Paid'] },
    shrank: true
  })
  t.strictSame(restate({ type: 'string', oneOf: [{ const: 'PENDING_REVIEW', title: 'Awaiting review' }, { const: 'LEGACY_REVIEW', title: 'Awaiting review' }, { const: 'PAID', title: 'Paid' }] }, STATUSES), {
    schema: { type: 'string', oneOf: [{ const: 'Awaiting review' }, { const: 'Paid' }] },
    shrank: true
  })
})

t.test('a display equal to another stored value is listed once', async (t) => {
  t.strictSame(restate({ type: 'string', enum: ['a', 'b'] }, new Map([['a', 'b']])), { schema: { type: 'string', enum: ['b'] }, shrank: true })
})

t.test('duplicates are judged by JSON equality: true, 1 and "1" differ', async (t) => {
  t.strictSame(restate({ enum: [true, 1, 'one', 'yes'] }, new Map([['one', '1'], ['yes', 'true']])), {
    schema: { enum: [true, 1, '1', 'true'] },
    shrank: false
  })
})

t.test('a collapse in an anyOf member counts', async (t) => {
  t.equal(restate({ anyOf: [{ enum: ['PAID'] }, { enum: ['PENDING_REVIEW', 'LEGACY_REVIEW'] }] }, STATUSES).shrank, true)
})

t.test('a collapse in an enum counts even beside a oneOf that kept its length', async (t) => {
  t.equal(restate({ enum: ['PENDING_REVIEW', 'LEGACY_REVIEW'], oneOf: [{ const: 'PAID' }] }, STATUSES).shrank, true)
})

t.test('the type is restated boolean, integer, number, string, deduplicated', async (t) => {
  const displays = new Map<unknown, string>([['x', 'Ex'], ['y', 'Why']])
  t.strictSame(restate({ type: ['string', 'number', 'boolean'], enum: ['x', 1.5, true, 2, 'y'] }, displays).schema, {
    type: ['boolean', 'integer', 'number', 'string'], enum: ['Ex', 1.5, true, 2, 'Why']
  })
})

t.test('a single restated type is a string, not a list', async (t) => {
  t.strictSame(restate({ type: ['integer'], enum: [1, 2] }, PRIORITIES).schema, { type: 'string', enum: ['Low', 'High'] })
})

t.test('null is named last when the stated type admitted it and no display speaks it', async (t) => {
  t.strictSame(restate({ type: ['null', 'integer'], enum: [null, 1, 2] }, PRIORITIES).schema, { type: ['string', 'null'], enum: [null, 'Low', 'High'] })
  t.strictSame(restate({ type: ['integer', 'null'], oneOf: [{ const: 1, title: 'Low' }, { const: null }] }, PRIORITIES).schema, {
    type: ['string', 'null'], oneOf: [{ const: 'Low' }, { const: null }]
  })
})

t.test('null is still named when the stated type admitted it though the values do not list it', async (t) => {
  t.strictSame(restate({ type: ['integer', 'null'], enum: [1, 2] }, PRIORITIES).schema, { type: ['string', 'null'], enum: ['Low', 'High'] })
})

t.test('a null spoken as a display is not named', async (t) => {
  const displays = new Map<unknown, string>([[1, 'Low'], [null, 'Unknown']])
  t.strictSame(restate({ type: ['integer', 'null'], oneOf: [{ const: 1, title: 'Low' }, { const: null, title: 'Unknown' }] }, displays).schema, {
    type: 'string', oneOf: [{ const: 'Low' }, { const: 'Unknown' }]
  })
})

t.test('null is not named when the stated type did not admit it', async (t) => {
  t.strictSame(restate({ type: 'integer', enum: [1, null] }, PRIORITIES).schema, { type: 'string', enum: ['Low', null] })
})

t.test('no type key: none is added', async (t) => {
  t.strictSame(restate({ enum: [1, 2] }, PRIORITIES).schema, { enum: ['Low', 'High'] })
  t.strictSame(restate({ oneOf: [{ const: 1, title: 'Low' }] }, PRIORITIES).schema, { oneOf: [{ const: 'Low' }] })
})

t.test('nothing to name: the type is left as written', async (t) => {
  t.strictSame(restate({ type: ['null'], enum: [null] }, PRIORITIES).schema, { type: ['null'], enum: [null] })
  t.strictSame(restate({ type: 'integer', minimum: 1 }, PRIORITIES), { schema: { type: 'integer', minimum: 1 }, shrank: false })
})

t.test('a value without a display keeps its type', async (t) => {
  t.strictSame(restate({ type: 'integer', enum: [1, 3] }, PRIORITIES).schema, { type: ['integer', 'string'], enum: ['Low', 3] })
})

t.test('the schema given is a copy, never written to', async (t) => {
  const schema = deepFreeze({ type: 'integer', enum: [1, 2] })
  t.not(choicesInDisplays(schema, PRIORITIES).schema, schema)
  t.strictSame(schema, { type: 'integer', enum: [1, 2] })
})
