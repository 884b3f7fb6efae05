// Every way a call to an upstream API can fail, whether it is worth another attempt, whether it
// counts against the upstream's circuit, and the problem it is to the gateway's own client. Pure:
// the client says what happened, these rules decide. A problem names the upstream by its origin and
// says what happened in general terms; what the upstream said goes to the log, never to the client.
import { problem } from '../../core/errors.js'

/** What went wrong with one call, in the client's words, before it becomes a problem. */
export type Fault =
  /** The connection was refused or reset, or the name did not resolve. */
  | { readonly kind: 'unreachable' }
  /** No connection, headers or body within their timeouts, or the call outlasted its deadline. */
  | { readonly kind: 'timeout' }
  /** An answer that is not well-formed HTTP (a parser error, a body shorter than announced). */
  | { readonly kind: 'malformed' }
  /** An error status; `waitMs` is how long the upstream asks to be left alone, where it says. */
  | { readonly kind: 'status', readonly status: number, readonly waitMs?: number }
  /** A body that is not JSON. */
  | { readonly kind: 'not-json' }
  /** A body larger than the gateway reads (`maxBytes`). */
  | { readonly kind: 'too-large' }
  /** A URL (a `next` link, say) on another origin than the upstream's, or no URL at all. */
  | { readonly kind: 'off-origin' }
  /** The upstream's circuit is open after repeated failures; it half-opens in `waitMs`. */
  | { readonly kind: 'circuit-open', readonly waitMs: number }
  /** Too many calls to the upstream are in flight and waiting already. */
  | { readonly kind: 'queue-full' }

/**
 * A fault on its way through the retry and the circuit breaker, which decide by its `fault`; the
 * retry by `retryable` too, decided where the fault was met, against that call's deadline.
 */
export class UpstreamFault extends Error {
  override name = 'UpstreamFault'
  readonly fault: Fault
  readonly retryable: boolean

  constructor (fault: Fault, retryable = false) {
    super(`The upstream call failed: ${fault.kind}.`)
    this.fault = fault
    this.retryable = retryable
  }
}

/** How long to leave an upstream alone that says "slow down" without saying for how long. */
export const DEFAULT_WAIT_MS = 5000

/** Connection failures: refused, reset, unroutable, unresolved. */
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN',
  'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'UND_ERR_SOCKET'
])

/** undici's per-attempt timeouts, and the system's own connect timeout. */
const TIMEOUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT'])

/** An answer that breaks HTTP: llhttp's parser errors (`HPE_*`) and bodies of the wrong length. */
const MALFORMED = new Set(['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_HEADERS_OVERFLOW'])

/** A TLS handshake that failed, a certificate that does not verify: `ERR_TLS_CERT_ALTNAME_INVALID`, `CERT_HAS_EXPIRED`. */
const TLS_REFUSED = /^(?:ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/

/**
 * The fault a thrown network error is, or undefined for anything else (a defect, which is thrown on
 * as it is). A connection tried on several addresses fails with each (AggregateError); a wrapper
 * keeps its cause.
 */
export function faultOfError (error: unknown): Fault | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, errors, cause } = error as { code?: unknown, errors?: unknown, cause?: unknown }
  if (typeof code === 'string') {
    if (UNREACHABLE.has(code) || TLS_REFUSED.test(code)) return { kind: 'unreachable' }
    if (TIMEOUT.has(code)) return { kind: 'timeout' }
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return { kind: 'too-large' }
    if (MALFORMED.has(code) || code.startsWith('HPE_')) return { kind: 'malformed' }
  }
  if (Array.isArray(errors)) {
    const found = errors.map(faultOfError).find((fault) => fault !== undefined)
    if (found !== undefined) return found
  }
  return faultOfError(cause)
}

/**
 * The fault an error status is (404 included, where a record was expected), with the wait the
 * upstream asks for in `Retry-After`: a 429 always has one, the default where it names none.
 */
export function faultOfStatus (status: number, retryAfter: string | string[] | undefined, now: number): Fault {
  const waitMs = waitOf(retryAfter, now)
  if (status === 429) return { kind: 'status', status, waitMs: waitMs ?? DEFAULT_WAIT_MS }
  return waitMs === undefined ? { kind: 'status', status } : { kind: 'status', status, waitMs }
}

/**
 * The milliseconds a `Retry-After` asks to wait (delay-seconds or an HTTP-date; a date gone by is
 * 0), or undefined when there is none or it says nothing readable.
 */
export function waitOf (retryAfter: string | string[] | undefined, now: number): number | undefined {
  const value = (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter)?.trim()
  if (value === undefined || value === '') return undefined
  if (/^\d+$/.test(value)) return Number(value) * 1000
  // An HTTP-date names its month and day; Date.parse alone would read '-1' or '1.5' as dates.
  const date = /[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * True when the fault says the upstream itself is failing, so it counts towards opening its
 * circuit: unreachable, too slow, or a 5xx. A 429 is the upstream working as meant; a 4xx or a
 * body the gateway cannot read is not made better by asking less.
 */
export function isFailure (fault: Fault): boolean {
  return fault.kind === 'unreachable' || fault.kind === 'timeout' || (fault.kind === 'status' && fault.status >= 500)
}

/**
 * True when another attempt may succeed and fits: a failure (above) or a 429, where the wait the
 * upstream asks for, if any, ends before the call's deadline (`remainingMs` from now).
 */
export function isRetryable (fault: Fault, remainingMs: number): boolean {
  if (!isFailure(fault) && !(fault.kind === 'status' && fault.status === 429)) return false
  return fault.kind !== 'status' || fault.waitMs === undefined || fault.waitMs < remainingMs
}

/** The milliseconds the upstream asked to wait before another attempt, 0 where it asked nothing. */
export function requestedWait (fault: Fault): number {
  return fault.kind === 'status' ? fault.waitMs ?? 0 : 0
}

/** How a caller's problem names the upstream called `name`: never by its origin. */
export function upstreamCalled (name: string | undefined): string {
  return name === undefined ? 'The upstream' : `The upstream ${JSON.stringify(name)}`
}

/** The problem the gateway answers for `fault` of the upstream called `name`. */
export function problemOfFault (name: string | undefined, fault: Fault): Error {
  const upstream = upstreamCalled(name)
  switch (fault.kind) {
    case 'unreachable': return problem('AG_UPSTREAM_UNREACHABLE', `${upstream} could not be reached.`)
    case 'timeout': return problem('AG_UPSTREAM_TIMEOUT', `${upstream} did not answer in time.`)
    case 'malformed': return problem('AG_UPSTREAM_FAILED', `${upstream} answered something that is not well-formed HTTP.`)
    case 'not-json': return problem('AG_UPSTREAM_FAILED', `${upstream} answered something that is not JSON.`)
    case 'too-large': return problem('AG_UPSTREAM_FAILED', `${upstream} answered a body larger than the gateway reads.`)
    case 'off-origin': return problem('AG_UPSTREAM_FAILED', `${upstream} linked off its origin, which the gateway does not follow.`)
    case 'circuit-open': return waiting(`${upstream} is failing; the gateway leaves it alone for a while.`, fault.waitMs)
    case 'queue-full': return waiting(`${upstream}: too many calls to it are waiting already.`, 1000)
    case 'status': return ofStatus(upstream, fault.status, fault.waitMs)
  }
}

/**
 * The longest wait the gateway passes on (5 minutes): an upstream asking for more (`Retry-After:
 * 999999`) is not believed, and a caller is told to come back sooner, when the breaker asks again.
 */
export const MAX_RETRY_AFTER_SECONDS = 300

/** Whole seconds, from 1 to MAX_RETRY_AFTER_SECONDS, for a `Retry-After` header. */
export function retryAfterSeconds (waitMs: number): number {
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(waitMs / 1000)))
}

function ofStatus (upstream: string, status: number, waitMs: number | undefined): Error {
  if (status === 429) return waiting(`${upstream} asks the gateway to slow down.`, waitMs ?? DEFAULT_WAIT_MS)
  if (status === 401 || status === 403) return problem('AG_UPSTREAM_FAILED', `${upstream} refused the gateway's credentials (HTTP ${status}).`)
  if (status === 404) return problem('AG_UPSTREAM_FAILED', `${upstream} has nothing where the gateway expected a resource (HTTP 404).`)
  return problem('AG_UPSTREAM_FAILED', `${upstream} answered with an error (HTTP ${status}).`)
}

/** A 503 telling the client how long to wait, in the detail and in `Retry-After`. */
function waiting (detail: string, waitMs: number): Error {
  const seconds = retryAfterSeconds(waitMs)
  return Object.assign(problem('AG_UPSTREAM_UNAVAILABLE', `${detail} Retry after ${seconds} s.`), { headers: { 'Retry-After': String(seconds) } })
}
