// An action's body, checked as JSON is sent: closed (every field it does not declare is named and
// refused, never dropped), nothing coerced (`"5"` is no integer), every wrong field named in one
// 400 with the path parameters' problems. A body left out is an empty one: an action whose fields
// are all optional may be called without any.
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { TObject } from 'typebox'
import { CUSTOM_FORMATS } from '../formats.js'
import { argumentErrors, type CompileArguments, type ValidationIssue } from './arguments.js'
import { invalidArguments } from './errors.js'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** What a body that is no JSON object is told, under the name `body`. */
export const NOT_AN_OBJECT = 'Must be a JSON object of the action\'s fields.'

/** An Ajv that checks bodies: every error reported, nothing coerced, added or removed. */
export function bodiesAjv (): Ajv {
  const ajv = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: true, strict: false, validateSchema: false })
  addFormats(ajv, ['date', 'date-time'])
  for (const [name, pattern] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, pattern)
  return ajv
}

/**
 * Compiled once, at registration: checks one body against `schema` (closed), adding what is wrong
 * to `problems` (the path parameters' already), and throws the 400 naming every one, or returns the body.
 */
export function bodyChecker (schema: TObject, compile: CompileArguments): (sent: unknown, problems: Map<string, string[]>) => Record<string, unknown> {
  const validate = compile(schema)
  return (sent, problems) => {
    const body = sent === undefined ? {} : sent
    if (typeof body !== 'object' || body === null || Array.isArray(body)) problems.set('body', [NOT_AN_OBJECT])
    else if (!validate(body)) {
      for (const [name, messages] of Object.entries(argumentErrors(validate.errors as ValidationIssue[], 'body'))) problems.set(name, [...(problems.get(name) ?? []), ...messages])
    }
    if (problems.size > 0) throw invalidArguments(Object.fromEntries(problems))
    return body as Record<string, unknown>
  }
}
