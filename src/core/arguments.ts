// Closed arguments: every query parameter a mount did not declare is refused, never dropped, and
// integers arrive as integers. Every transport validates with this ajv (over HTTP whatever options
// the Fastify instance was built with: its default `removeAdditional` would silently drop unknown names).
import { Ajv, type ValidateFunction } from 'ajv'
import type { TProperties } from 'typebox'
import { invalidArguments } from './errors.js'

const ajv = new Ajv({
  coerceTypes: true,
  removeAdditional: false,
  useDefaults: false, // defaults are documentation; an absent paging parameter must stay absent
  allErrors: true,
  strict: false
})

/** What Fastify's `validatorCompiler` returns: whether the data is valid, and Ajv's issues when not. */
export interface ArgumentValidator {
  (data: unknown): boolean
  errors?: ValidateFunction['errors']
}

/** Compiles a request schema (querystring, params) for Fastify's `validatorCompiler`. */
export function compileArgumentValidator ({ schema }: { schema: object }): ArgumentValidator {
  const validate = ajv.compile(schema)
  // Ajv's coercion reads `1e400` or `Infinity` as a number that passes as an integer: refused
  // here as the non-integer it is, so no handler is given a count it cannot serve (a 500).
  const validateArguments: ArgumentValidator = (data) => {
    const valid = validate(data)
    validateArguments.errors = validate.errors
    if (!valid) return false
    const infinite = Object.entries(data as object).filter(([, value]) => typeof value === 'number' && !Number.isFinite(value))
    if (infinite.length === 0) return true
    validateArguments.errors = infinite.map(([name]) => ({ keyword: 'type', instancePath: `/${name}`, schemaPath: '#/type', params: { type: 'integer' }, message: 'must be integer' }))
    return false
  }
  return validateArguments
}

/** Splits a validated query into the paging parameters and the declared arguments. */
export function splitQuery (query: Readonly<Record<string, unknown>>, paging: TProperties): {
  paging: Record<string, number | undefined>
  args: Record<string, unknown>
} {
  const taken: Record<string, number | undefined> = {}
  const args: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(query)) {
    if (Object.hasOwn(paging, name)) taken[name] = value as number
    else args[name] = value
  }
  return { paging: taken, args }
}

/** Refuses (400) each of the style's parameters a plain client sent, saying why with `message`. */
export function refuseFromPlainClient (paging: Readonly<Record<string, unknown>>, parameters: TProperties, message: string): void {
  const sent = Object.keys(parameters).filter((name) => paging[name] !== undefined)
  if (sent.length > 0) throw invalidArguments(Object.fromEntries(sent.map((name) => [name, [message]])))
}
