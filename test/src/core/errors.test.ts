// The registry is what every problem, every published response and the docs derive from: each code
// has a status, a title, a type and a line in docs/errors.md, and its constructor raises it.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { isProblemCode, problem, PROBLEM_KINDS, problemType, type ProblemCode } from '../../../src/core/errors.js'
import { problemOf } from '../../../src/core/problem.js'
import { ROOT } from '../../helpers/paths.js'

const CODES = Object.keys(PROBLEM_KINDS) as ProblemCode[]

t.test('the codes are pinned', async (t) => {
  t.strictSame(CODES, [
    'AG_INVALID_ARGUMENTS', 'AG_UNKNOWN_AUDIENCE', 'AG_MALFORMED_REQUEST', 'AG_UNAUTHORIZED', 'AG_FORBIDDEN', 'AG_CLAIM_REQUIRED', 'AG_NOT_FOUND',
    'AG_METHOD_NOT_ALLOWED', 'AG_NOT_ACCEPTABLE', 'AG_ACTION_UNAVAILABLE', 'AG_IDEMPOTENCY_IN_PROGRESS', 'AG_REQUEST_TIMEOUT', 'AG_PRECONDITION_FAILED', 'AG_BODY_NOT_ALLOWED', 'AG_BODY_TOO_LARGE',
    'AG_PARAMETER_TOO_LONG', 'AG_UNSUPPORTED_MEDIA_TYPE', 'AG_RANGE_NOT_SATISFIABLE', 'AG_EXPECTATION_FAILED', 'AG_IDEMPOTENCY_KEY_REUSED', 'AG_RATE_LIMITED', 'AG_TOO_MANY_STREAMS', 'AG_HEADERS_TOO_LARGE',
    'AG_UPSTREAM_UNREACHABLE', 'AG_UPSTREAM_FAILED', 'AG_STORED_VALUE_INVALID', 'AG_STORE_UNAVAILABLE', 'AG_ISSUER_UNAVAILABLE', 'AG_UPSTREAM_UNAVAILABLE', 'AG_OVERLOADED', 'AG_SHUTTING_DOWN', 'AG_UPSTREAM_TIMEOUT'
  ])
})

t.test('every code has a client or server error status, a title and a problem type', async (t) => {
  for (const code of CODES) {
    const { status, title, when } = PROBLEM_KINDS[code]
    t.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: status ${status}`)
    t.match(title, /^[A-Z][a-z]+( [A-Za-z]+)*$/, `${code}: title`)
    t.ok(when.length > 0, `${code}: when`)
    t.match(problemType(code), /^urn:audience-gateway:problem:[a-z]+(-[a-z]+)*$/, `${code}: type`)
  }
})

t.test('what problem() raises for a code becomes that code\'s problem, its detail as given', async (t) => {
  for (const code of CODES) {
    const error = problem(code, 'What went wrong.')
    t.ok(error instanceof Error, `${code} is an Error`)
    t.equal(error.code, code)
    t.equal(error.statusCode, PROBLEM_KINDS[code].status)
    const { status, body } = problemOf(error)
    const kind = PROBLEM_KINDS[code]
    t.strictSame({ status, body }, { status: kind.status, body: { type: problemType(code), title: kind.title, status: kind.status, detail: 'What went wrong.' } })
  }
  t.equal(problem('AG_NOT_FOUND', 'a').constructor, problem('AG_NOT_FOUND', 'b').constructor, 'one class per code, made once')
})

t.test('every code has its line in docs/errors.md, with its status, title and type', async (t) => {
  const docs = await readFile(join(ROOT, 'docs/errors.md'), 'utf8')
  for (const code of CODES) {
    const line = docs.split('\n').find((row) => row.startsWith(`| \`${code}\` |`))
    if (line === undefined) {
      t.fail(`${code} has no line in docs/errors.md`)
      continue
    }
    const [, , status, title, type] = line.split('|').map((cell) => cell.trim())
    t.strictSame([Number(status), title, type], [PROBLEM_KINDS[code].status, PROBLEM_KINDS[code].title, `\`${problemType(code)}\``], code)
  }
  const documented = docs.split('\n').filter((row) => /^\| `AG_/.test(row)).length
  t.equal(documented, CODES.length, 'no line documents a code the registry lacks')
})

t.test('only the registry\'s codes are problem codes', async (t) => {
  t.notOk(isProblemCode('FST_ERR_NOT_FOUND'))
  t.notOk(isProblemCode('constructor'))
  t.notOk(isProblemCode(undefined))
})
