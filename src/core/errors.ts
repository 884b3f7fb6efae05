// The one registry of the problems the gateway raises: code, status, title and when it is answered.
// Everything else derives from this table: the errors `problem()` raises, the problem `type` URNs, the
// problems each route publishes, the raw-socket answers of the server, and a test pins its docs.
import createError, { type FastifyErrorConstructor } from '@fastify/error'
import { echoed, echoedList, MAX_ECHOED_NAMES, quotedName } from './echo.js'

export interface ProblemKind {
  readonly status: number
  /** What kind of problem, the same for every occurrence (`detail` says what happened). */
  readonly title: string
  /** When it is answered, as a route's published responses say it. */
  readonly when: string
  /** Seconds a client should wait before retrying (`Retry-After`), where waiting helps. */
  readonly retryAfter?: number
}

export const PROBLEM_KINDS = {
  AG_INVALID_ARGUMENTS: { status: 400, title: 'Invalid arguments', when: 'a malformed or unknown argument or a paging parameter from a plain client' },
  AG_UNKNOWN_AUDIENCE: { status: 400, title: 'Unknown audience', when: 'an unknown audience' },
  AG_MALFORMED_REQUEST: { status: 400, title: 'Malformed request', when: 'a request that is not well-formed HTTP/1.1' },
  AG_UNAUTHORIZED: { status: 401, title: 'Unauthorized', when: 'missing or wrong credentials' },
  AG_FORBIDDEN: { status: 403, title: 'Forbidden', when: 'this key may not call this route' },
  AG_CLAIM_REQUIRED: { status: 403, title: 'Claim required', when: 'the caller\'s identity lacks the claim (or holds it as another type) the route\'s rows are chosen by' },
  AG_NOT_FOUND: { status: 404, title: 'Not found', when: 'no such record' },
  AG_METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed', when: 'a method the path is not served with (`Allow` lists those it is)' },
  AG_NOT_ACCEPTABLE: { status: 406, title: 'Not acceptable', when: 'none of the media types in Accept is on offer' },
  AG_ACTION_UNAVAILABLE: { status: 409, title: 'Action unavailable', when: 'the action is no longer available on the record (its `code` and `reason` are the affordance\'s, as a read of the record now says them); nothing was done' },
  AG_IDEMPOTENCY_IN_PROGRESS: { status: 409, title: 'Call in progress', when: 'a call with the same Idempotency-Key is still being acted on; retry after the Retry-After header\'s seconds for its result', retryAfter: 1 },
  AG_REQUEST_TIMEOUT: { status: 408, title: 'Request timeout', when: 'the request did not arrive whole in time' },
  AG_PRECONDITION_FAILED: { status: 412, title: 'Precondition failed', when: 'If-Match names no current representation' },
  AG_BODY_NOT_ALLOWED: { status: 413, title: 'Body not allowed', when: 'a body on a GET or HEAD request' },
  AG_BODY_TOO_LARGE: { status: 413, title: 'Body too large', when: 'a request body larger than the action takes' },
  AG_PARAMETER_TOO_LONG: { status: 414, title: 'Parameter too long', when: 'a path parameter longer than the server reads' },
  AG_UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type', when: 'a request body that is not JSON (`Content-Type: application/json`)' },
  AG_RANGE_NOT_SATISFIABLE: { status: 416, title: 'Range not satisfiable', when: 'a Range header whose range starts past the end of the content (`Content-Range: bytes */<length>` gives its length)' },
  AG_EXPECTATION_FAILED: { status: 417, title: 'Expectation failed', when: 'an `Expect` header other than `100-continue`' },
  AG_IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Idempotency key reused', when: 'an Idempotency-Key already used for this action with other arguments: send a new key for a new call' },
  AG_RATE_LIMITED: { status: 429, title: 'Rate limited', when: 'too many requests from this key or address; retry after the Retry-After header\'s seconds' },
  AG_TOO_MANY_STREAMS: { status: 429, title: 'Too many streams', when: 'a whole list asked for while this key or address is already streaming as many as one caller may at once; retry once one of them has ended', retryAfter: 5 },
  AG_HEADERS_TOO_LARGE: { status: 431, title: 'Headers too large', when: 'the request\'s headers are too large' },
  AG_UPSTREAM_UNREACHABLE: { status: 502, title: 'Upstream unreachable', when: 'the upstream refused or reset the connection, or its name did not resolve' },
  AG_UPSTREAM_FAILED: { status: 502, title: 'Upstream failed', when: 'the upstream answered an error, something that is not JSON, a row the declared record does not match, or refused the gateway\'s own credentials' },
  AG_STORED_VALUE_INVALID: { status: 502, title: 'Stored value invalid', when: 'a stored value the record\'s declaration does not admit (a NULL in a field not declared nullable, a timestamp that cannot be read): never served as a made-up value' },
  AG_STORE_UNAVAILABLE: { status: 503, title: 'Store unavailable', when: 'the store does not answer', retryAfter: 5 },
  AG_ISSUER_UNAVAILABLE: { status: 503, title: 'Issuer unavailable', when: 'a bearer token whose issuer (its discovery document or its keys) could not be reached to check it; retry, or send a key', retryAfter: 5 },
  AG_UPSTREAM_UNAVAILABLE: { status: 503, title: 'Upstream unavailable', when: 'the upstream asks to slow down, its circuit is open after repeated failures, or too many calls to it are waiting; retry after the Retry-After header\'s seconds', retryAfter: 5 },
  AG_OVERLOADED: { status: 503, title: 'Overloaded', when: 'the server is overloaded' },
  AG_SHUTTING_DOWN: { status: 503, title: 'Shutting down', when: 'the replica is shutting down (readiness only): route to another' },
  AG_UPSTREAM_TIMEOUT: { status: 504, title: 'Upstream timeout', when: 'the upstream did not answer within its timeouts or the request\'s deadline' }
} as const satisfies Readonly<Record<string, ProblemKind>>

export type ProblemCode = keyof typeof PROBLEM_KINDS

/** Per-argument messages, as problem+json's `errors` member carries them. */
export type ArgumentErrors = Record<string, string[]>

/** Why an action is unavailable, as its affordance answers: a machine code and a human reason. */
export interface Unavailable {
  readonly code: string
  readonly reason: string
}

/** The 409 of an action whose affordance no longer holds: the affordance's own code and reason, carried as the problem's. */
export function actionUnavailable (action: string, why: Unavailable): Error & { unavailable: Unavailable } {
  return Object.assign(problem('AG_ACTION_UNAVAILABLE', `${action} is not available on this record now: ${why.reason} Nothing was done.`), { unavailable: { code: why.code, reason: why.reason } })
}

/**
 * The error a code names, with `detail` saying what went wrong with this request (and, for a client
 * error, how to fix it): `throw problem('AG_NOT_FOUND', 'No record matches id 9.')`.
 */
export function problem (code: ProblemCode, detail: string): Error & { code: ProblemCode, statusCode: number } {
  return new (errorClass(code))(detail) as Error & { code: ProblemCode, statusCode: number }
}

/** The detail of a request no route serves; the path is not echoed back. */
export const NO_ROUTE = 'No route serves this method and path. The routes are listed at /openapi.json.'

/** True when `code` is one of the registry's. */
export function isProblemCode (code: unknown): code is ProblemCode {
  return typeof code === 'string' && Object.hasOwn(PROBLEM_KINDS, code)
}

/** The `type` URN of a registry code: `AG_NOT_FOUND` -> `urn:audience-gateway:problem:not-found`. */
export function problemType (code: ProblemCode): string {
  return 'urn:audience-gateway:problem:' + code.replace(/^AG_/, '').toLowerCase().replaceAll('_', '-')
}

/** A 400 naming each offending argument with what is wrong with it. */
export function invalidArguments (errors: ArgumentErrors): Error & { errors: ArgumentErrors } {
  const names = Object.keys(errors)
  const error = problem('AG_INVALID_ARGUMENTS', `The request has ${names.length === 1 ? 'an invalid argument' : `${names.length} invalid arguments`}: ${echoedList(names, (name) => quotedName(echoed(name)))}.`)
  return Object.assign(error, { errors: echoedErrors(errors) })
}

/**
 * `errors` as a problem carries them: the first MAX_ECHOED_NAMES arguments, each name bounded (two
 * long names alike in their start share one entry). A Map, as in argumentErrors: a name may be `__proto__`.
 */
function echoedErrors (errors: ArgumentErrors): ArgumentErrors {
  const kept = new Map<string, string[]>()
  for (const [name, messages] of Object.entries(errors).slice(0, MAX_ECHOED_NAMES)) {
    const quoted = echoed(name)
    kept.set(quoted, [...(kept.get(quoted) ?? []), ...messages])
  }
  return Object.fromEntries(kept)
}

/** One error class per code, made once from the table: its message is the problem's `detail`. */
const classes = new Map<ProblemCode, FastifyErrorConstructor<{ code: ProblemCode }, [detail: string]>>()

function errorClass (code: ProblemCode): FastifyErrorConstructor<{ code: ProblemCode }, [detail: string]> {
  let made = classes.get(code)
  if (made === undefined) {
    made = createError<ProblemCode, [detail: string]>(code, '%s', PROBLEM_KINDS[code].status)
    classes.set(code, made)
  }
  return made
}
