import { Ajv2020 } from 'ajv/dist/2020.js'
import t from 'tap'
import Type from 'typebox'
import { Decimal, fieldInfo, handle, Marking, Nullable } from '../../../src/declare/index.js'
import { DECIMAL_PATTERN } from '../../../src/formats.js'
import { validationErrors } from '../../helpers/ajv.js'

const DECIMALS = ['9.99', '-1', '10', '0.000000000000000000001', '123456789012345678901234567890']
const NOT_DECIMALS = [9.99, '9,99', '.5', '1.', '+1', '1e3', '', ' 1', '1 ', 'NaN', 'Infinity', '0x10', '١٢', '１']

t.test('a decimal is a string in the decimal format, with its pattern', async (t) => {
  t.strictSame({ ...Decimal() }, { type: 'string', format: 'decimal', pattern: DECIMAL_PATTERN })
  t.strictSame({ ...Decimal({ description: 'A price.' }) }, { type: 'string', format: 'decimal', pattern: DECIMAL_PATTERN, description: 'A price.' })
  t.strictSame(DECIMALS.map((value) => validationErrors(Decimal(), value).length), DECIMALS.map(() => 0))
  t.strictSame(NOT_DECIMALS.map((value) => validationErrors(Decimal(), value).length > 0), NOT_DECIMALS.map(() => true))
})

t.test('a validator that does not know the decimal format checks a decimal by its pattern alone', async (t) => {
  // What most contract testers do with a format they do not know: ignore it.
  const ajv = new Ajv2020({ strict: false, validateFormats: false })
  const validate = ajv.compile({ ...Decimal() })
  t.strictSame(DECIMALS.map((value) => validate(value)), DECIMALS.map(() => true))
  t.strictSame(NOT_DECIMALS.map((value) => validate(value)), NOT_DECIMALS.map(() => false))
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
