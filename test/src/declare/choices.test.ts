import t from 'tap'
import { choices, fieldInfo } from '../../../src/declare/index.js'
import { validationErrors } from '../../helpers/ajv.js'
import { deepFreeze } from '../../helpers/freeze.js'

t.test('when every display equals its value the field is an enum, with its type', async (t) => {
  const schema = choices([['a', 'a'], ['b', 'b']])
  t.strictSame({ ...schema }, { type: 'string', enum: ['a', 'b'] })
  t.strictSame(fieldInfo(schema).displays, new Map())
})

t.test('otherwise a oneOf of {const, title}, with its type', async (t) => {
  t.strictSame({ ...choices([[1, 'Low'], [2, 'High']]) }, { type: 'integer', oneOf: [{ const: 1, title: 'Low' }, { const: 2, title: 'High' }] })
})

t.test('an object is shorthand for string values', async (t) => {
  const schema = choices({ draft: 'Draft', published: 'Published' })
  t.strictSame({ ...schema }, { type: 'string', oneOf: [{ const: 'draft', title: 'Draft' }, { const: 'published', title: 'Published' }] })
  t.strictSame(fieldInfo(schema).displays, new Map([['draft', 'Draft'], ['published', 'Published']]))
})

t.test('only pairs whose display differs from the value count as displays', async (t) => {
  const schema = choices([['a', 'a'], ['b', 'Bee'], [1, '1'], [true, 'true']])
  t.strictSame(fieldInfo(schema).displays, new Map([['b', 'Bee']]))
  t.strictSame({ ...schema }, {
    type: ['boolean', 'integer', 'string'],
    oneOf: [{ const: 'a', title: 'a' }, { const: 'b', title: 'Bee' }, { const: 1, title: '1' }, { const: true, title: 'true' }]
  })
})

t.test('displays are keyed by the raw value: 1, "1", true and null differ', async (t) => {
  const displays = fieldInfo(choices([[1, 'One'], ['1', 'String one'], [true, 'Yes'], [null, 'Unknown']])).displays
  t.equal(displays?.size, 4)
  t.strictSame([1, '1', true, null, 'true', 0, false].map((value) => displays?.get(value)), ['One', 'String one', 'Yes', 'Unknown', undefined, undefined, undefined])
})

t.test('a nullable enum adds null to its values and its type', async (t) => {
  t.strictSame({ ...choices([['a', 'a'], ['b', 'b']], { nullable: true }) }, { type: ['string', 'null'], enum: ['a', 'b', null] })
})

t.test('a nullable oneOf adds {const: null} without a title', async (t) => {
  const schema = choices([[1, 'Low'], [2, 'High']], { nullable: true })
  t.strictSame({ ...schema }, { type: ['integer', 'null'], oneOf: [{ const: 1, title: 'Low' }, { const: 2, title: 'High' }, { const: null }] })
  t.notOk(fieldInfo(schema).displays?.has(null), 'a null without a display is not spoken')
})

t.test('nullable adds nothing when the choices already list null', async (t) => {
  const schema = choices([[1, 'Low'], [null, 'Unknown']], { nullable: true })
  t.strictSame({ ...schema }, { type: ['integer', 'null'], oneOf: [{ const: 1, title: 'Low' }, { const: null, title: 'Unknown' }] })
  t.equal(fieldInfo(schema).displays?.get(null), 'Unknown')
  t.strictSame({ ...choices([['a', 'a'], [null, 'null']], { nullable: true }) }, { type: ['string', 'null'], enum: ['a', null] })
})

t.test('a null the choices list without a display is {const: null} beside displayed values', async (t) => {
  t.strictSame({ ...choices([[1, 'Low'], [null, 'null']]) }, { type: ['integer', 'null'], oneOf: [{ const: 1, title: 'Low' }, { const: null }] })
})

t.test('a title and a description are carried; other options are not', async (t) => {
  t.strictSame({ ...choices([['a', 'A']], { title: 'Kind', description: 'The kind.', nullable: false }) }, {
    type: 'string', oneOf: [{ const: 'a', title: 'A' }], title: 'Kind', description: 'The kind.'
  })
})

t.test('a choice field needs at least one value', async (t) => {
  t.throws(() => choices([]), new TypeError('A choice field needs at least one value.'))
  t.throws(() => choices({}), new TypeError('A choice field needs at least one value.'))
})

t.test('the pairs are read, never written', async (t) => {
  const pairs = deepFreeze([['a', 'A'], ['b', 'B']] as const)
  t.strictSame(fieldInfo(choices(pairs, { nullable: true })).displays, new Map([['a', 'A'], ['b', 'B']]))
  t.strictSame(pairs, [['a', 'A'], ['b', 'B']])
})

t.test('the plain schema carries no trace of the displays', async (t) => {
  t.equal(JSON.stringify(choices([[1, 'Low'], [2, 'High']])), '{"type":"integer","oneOf":[{"const":1,"title":"Low"},{"const":2,"title":"High"}]}')
})

t.test('the plain schema admits exactly the stored values', async (t) => {
  const schema = choices([[1, 'Low'], [2, 'High']], { nullable: true })
  t.strictSame([1, 2, null].map((value) => validationErrors(schema, value).length), [0, 0, 0])
  t.strictSame([3, 'Low', '1'].map((value) => validationErrors(schema, value).length > 0), [true, true, true])
})
