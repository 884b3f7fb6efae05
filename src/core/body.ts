// An action's body, checked as JSON is sent: closed (every field it does not declare is named and
// refused, never dropped), nothing coerced (`"5"` is no integer), every wrong field named in one
// 400 with the path parameters' problems. A body left out is an empty one: an action whose fields
// are all optional may be called without any.
import type { TObject } from 'typebox'
import { argumentErrors, type CompileArguments, type ValidationIssue } from './arguments.js'
import { invalidArguments } from './errors.js'

/** What a body that is no JSON object is told, under the name `body`. */
export const NOT_AN_OBJECT = 'Must be a JSON object of the action\'s fields.'

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
