import t from 'tap'
import { isArraySchema, isObjectSchema } from '../../../src/projection/json-schema.js'

t.test('a record is an object schema with declared properties', async (t) => {
  t.strictSame(
    [
      { type: 'object', properties: {} },
      { type: ['object', 'null'], properties: { a: { type: 'string' } } },
      { type: 'object' },
      { type: 'object', properties: [] },
      { properties: {} },
      { type: ['string', 'null'], properties: {} },
      null,
      [{ type: 'object', properties: {} }],
      'object'
    ].map(isObjectSchema),
    [true, true, false, false, false, false, false, false, false]
  )
})

t.test('an array schema has a single item schema', async (t) => {
  t.strictSame(
    [
      { type: 'array', items: { type: 'string' } },
      { type: ['array', 'null'], items: {} },
      { type: 'array' },
      { type: 'array', items: true },
      { type: 'array', items: [{ type: 'string' }] },
      { items: {} },
      undefined
    ].map(isArraySchema),
    [true, true, false, false, false, false, false]
  )
})
