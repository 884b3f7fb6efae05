import t from 'tap'
import Type from 'typebox'
import { Decimal, fieldInfo, handle, Marking, Nullable } from '../../../src/declare/index.js'
import { validationErrors } from '../../helpers/ajv.js'

t.test('a decimal is a string in the decimal format', async (t) => {
  t.strictSame({ ...Decimal() }, { type: 'string', format: 'decimal' })
  t.strictSame({ ...Decimal({ description: 'A price.' }) }, { type: 'string', format: 'decimal', description: 'A price.' })
  t.strictSame(['9.99', '-1', '10'].map((value) => validationErrors(Decimal(), value).length), [0, 0, 0])
  t.strictSame([9.99, '9,99', '.5'].map((value) => validationErrors(Decimal(), value).length > 0), [true, true, true])
})

t.test('Nullable states null in the type list', async (t) => {
  const schema = Nullable(Type.String({ format: 'date', description: 'A day.' }))
  t.strictSame({ ...schema }, { type: ['string', 'null'], format: 'date', description: 'A day.' })
  t.strictSame([null, '2026-01-31'].map((value) => validationErrors(schema, value).length), [0, 0])
})

t.test('Nullable keeps what was declared about the field', async (t) => {
  t.strictSame(fieldInfo(Nullable(handle(Type.Integer(), 'Pass it on.'))).marking, Marking.handle('Pass it on.'))
  t.strictSame(fieldInfo(Nullable(Type.Integer())), {})
})

t.test('Nullable needs a schema stating a single type', async (t) => {
  for (const schema of [Nullable(Type.String()), Type.Union([Type.String(), Type.Integer()])]) {
    t.throws(() => Nullable(schema), new TypeError('Nullable needs a schema that states a single type.'))
  }
})
