// What any thrown error becomes: an RFC 9457 problem. Pure, so every transport tells a client the
// same thing about the same failure. The gateway's own codes come from the registry (errors.ts);
// anything else keeps its status, says `about:blank`, and a 5xx says nothing about the server.
import { STATUS_CODES } from 'node:http'
import Type, { type Static } from 'typebox'
import { isStoreUnavailable } from '../store/errors.js'
import { argumentErrors } from './arguments.js'
import { invalidArguments, isProblemCode, problem, PROBLEM_KINDS, problemType, type ArgumentErrors, type ProblemCode, type ProblemKind, type Unavailable } from './errors.js'

export const Problem = Type.Object({
  type: Type.String({
    format: 'uri',
    description: 'What kind of problem: a URN of this gateway (`urn:audience-gateway:problem:<kind>`), or `about:blank` when the HTTP status says it all.'
  }),
  title: Type.String({ description: 'A short summary of the kind of problem, the same for every occurrence.' }),
  status: Type.Integer({ minimum: 400, maximum: 599, description: 'The HTTP status code of this response.' }),
  detail: Type.String({ description: 'What went wrong with this request and, for a client error, how to fix it.' }),
  errors: Type.Optional(Type.Object({}, {
    additionalProperties: Type.Array(Type.String()),
    description: 'For invalid input: each offending argument, with what is wrong with it.'
  })),
  code: Type.Optional(Type.String({ description: 'For an action no longer available: the affordance\'s machine-readable code, as a read of the record says it now.' })),
  reason: Type.Optional(Type.String({ description: 'For an action no longer available: the affordance\'s reason, for a human.' })),
  request_id: Type.Optional(Type.String({
    maxLength: 128,
    description: 'The request\'s id (its `X-Request-Id`): every log line of the request carries it. Absent only where no request exists (a connection refused before one was read).'
  }))
}, { description: 'An RFC 9457 problem: why the request failed.' })

export type Problem = Static<typeof Problem> & { errors?: ArgumentErrors }

export interface ProblemResponse {
  readonly status: number
  readonly body: Problem
  /** Headers the error asks for, e.g. `WWW-Authenticate` or `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>
}

/** The detail of every unexpected failure: nothing about the server's insides. */
export const INTERNAL_DETAIL = 'The server could not complete the request.'

/** The detail of every store failure: retryable, and nothing about the store's insides. */
export const STORE_UNAVAILABLE_DETAIL = 'The store does not answer right now; retry shortly.'

/** Maps anything thrown to the problem a client sees. Never a stack trace, never a 500 for bad input. */
export function problemOf (error: unknown): ProblemResponse {
  if (isStoreUnavailable(error)) return problemOf(problem('AG_STORE_UNAVAILABLE', STORE_UNAVAILABLE_DETAIL))
  const fields = (typeof error === 'object' && error !== null ? error : {}) as ErrorFields
  const headers = headersOf(fields.headers)
  if (Array.isArray(fields.validation)) {
    return { status: 400, body: registryBody(invalidArguments(argumentErrors(fields.validation, fields.validationContext)), 400), headers }
  }
  const status = statusOf(fields.statusCode)
  if (isProblemCode(fields.code)) {
    const { retryAfter } = PROBLEM_KINDS[fields.code] as ProblemKind
    const waits: Record<string, string> = retryAfter === undefined || Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after') ? {} : { 'Retry-After': String(retryAfter) }
    return { status, body: registryBody(fields, status), headers: { ...headers, ...waits } }
  }
  const detail = status < 500 && typeof fields.message === 'string' && fields.message !== '' ? fields.message : INTERNAL_DETAIL
  return { status, body: { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail }, headers }
}

interface ErrorFields {
  code?: unknown
  statusCode?: unknown
  message?: unknown
  headers?: unknown
  errors?: unknown
  validation?: unknown
  validationContext?: unknown
  unavailable?: unknown
}

function registryBody (error: ErrorFields, status: number): Problem {
  const code = error.code as ProblemCode
  const body: Problem = { type: problemType(code), title: PROBLEM_KINDS[code].title, status, detail: String(error.message) }
  if (typeof error.errors === 'object' && error.errors !== null) body.errors = error.errors as ArgumentErrors
  if (typeof error.unavailable === 'object' && error.unavailable !== null) Object.assign(body, pickUnavailable(error.unavailable as Unavailable))
  return body
}

function pickUnavailable ({ code, reason }: Unavailable): Unavailable {
  return { code, reason }
}

function statusOf (statusCode: unknown): number {
  return Number.isInteger(statusCode) && (statusCode as number) >= 400 && (statusCode as number) <= 599 ? statusCode as number : 500
}

function headersOf (headers: unknown): Record<string, string> {
  if (typeof headers !== 'object' || headers === null) return {}
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]))
}
