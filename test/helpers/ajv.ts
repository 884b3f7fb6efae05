// One JSON Schema validator (draft 2020-12) for every test that checks a body against a schema.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { CUSTOM_FORMATS } from '../../src/formats.js'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

export function createAjv (): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false })
  addFormats(ajv)
  for (const [name, format] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, format)
  ajv.addKeyword('example')
  return ajv
}

const shared = createAjv()

/** The validation errors of `value` against `schema`, or an empty list. */
export function validationErrors (schema: object, value: unknown): ErrorObject[] {
  const validate = shared.compile(schema)
  return validate(value) ? [] : [...(validate.errors ?? [])]
}
