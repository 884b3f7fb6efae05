// A problem answer as the tests read it: its content type, and its body checked against Problem.
import { Problem } from '../../src/core/problem.js'
import { validationErrors } from './ajv.js'

export const PROBLEM_JSON = 'application/problem+json; charset=utf-8'

/** The body of `res`, which must be a Problem as published (a test fails on a throw). */
export function problemBody (res: { json: () => unknown }): Problem {
  const body = res.json() as Problem
  const errors = validationErrors(Problem, body)
  if (errors.length > 0) throw new Error(`not a Problem: ${JSON.stringify(errors)}`)
  return body
}
