// Closed arguments: every query parameter a mount did not declare is refused, never dropped, and
// integers arrive as integers. Mounted routes validate with this ajv, whatever options the Fastify
// instance was built with (its default `removeAdditional` would silently drop unknown names).
import { Ajv, type ValidateFunction } from 'ajv'
import Type, { type TObject, type TProperties } from 'typebox'

const ajv = new Ajv({
  coerceTypes: true,
  removeAdditional: false,
  useDefaults: false, // defaults are documentation; an absent paging parameter must stay absent
  allErrors: true,
  strict: false
})

/** Compiles a request schema (querystring, params) for Fastify's `validatorCompiler`. */
export function compileArgumentValidator ({ schema }: { schema: object }): ValidateFunction {
  return ajv.compile(schema)
}

/** The route's querystring: its declared arguments plus the paging parameters, closed. */
export function querystringSchema (declared: TObject | undefined, paging: TProperties): TObject {
  const properties = { ...declared?.properties, ...paging }
  return Type.Object(properties, { additionalProperties: false })
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
