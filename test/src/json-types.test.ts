import t from 'tap'
import { admitsNull, jsonTypeOf, jsonTypesOf } from '../../src/json-types.js'

t.test('a value\'s JSON type: 1 is an integer, 1.5 a number', async (t) => {
  t.strictSame(
    [null, [1], true, 1, 1.5, 'a', { a: 1 }].map(jsonTypeOf),
    ['null', 'array', 'boolean', 'integer', 'number', 'string', 'object']
  )
})

t.test('types are listed boolean, integer, number, string, array, object, deduplicated', async (t) => {
  t.strictSame(jsonTypesOf([{}, 'b', [], 1.5, 2, false, 'a', 3]), ['boolean', 'integer', 'number', 'string', 'array', 'object'])
})

t.test('null is named last', async (t) => {
  t.strictSame(jsonTypesOf([null, 'a', 1]), ['integer', 'string', 'null'])
})

t.test('a single type is named as a string, not a list', async (t) => {
  t.equal(jsonTypesOf(['a', 'b']), 'string')
  t.equal(jsonTypesOf([null]), 'null')
})

t.test('a stated type admits null when it is "null" or lists it', async (t) => {
  t.strictSame(
    ['null', ['string', 'null'], 'string', ['string', 'integer'], undefined].map(admitsNull),
    [true, true, false, false, false]
  )
})
