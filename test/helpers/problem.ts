// A problem answer as the tests read it: its content type, and its body checked against Problem.
import type { Test } from 'tap'
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

/** What a test expects of a problem answer: its status and kind, and what it says if that matters. */
export interface ExpectedProblem {
  readonly status: number
  /** The registry kind (`not-found`), or `about:blank`. */
  readonly kind: string
  readonly detail?: string | RegExp
  readonly errors?: Readonly<Record<string, unknown>>
}

/**
 * Asserts `res` is the problem expected: its status, its media type, a body valid as published,
 * its `type`, and its detail and errors where given. Returns the body for further checks.
 */
export function expectProblem (t: Pick<Test, 'equal' | 'match'>, res: { statusCode: number, headers: Record<string, unknown>, json: () => unknown }, expected: ExpectedProblem): Problem {
  t.equal(res.statusCode, expected.status, 'status')
  t.equal(res.headers['content-type'], PROBLEM_JSON, 'media type')
  const body = problemBody(res)
  t.equal(body.type, expected.kind === 'about:blank' ? 'about:blank' : `urn:audience-gateway:problem:${expected.kind}`, 'type')
  t.equal(body.status, expected.status, 'the body\'s status')
  if (expected.detail !== undefined) t.match(body.detail, expected.detail, 'detail')
  if (expected.errors !== undefined) t.match(body.errors, expected.errors, 'errors')
  return body
}
