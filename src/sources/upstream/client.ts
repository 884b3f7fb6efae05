// The HTTP client of one upstream JSON API: one undici pool for its origin, and around every GET a
// deadline, bounded retries, a circuit breaker and a cap on the calls in flight (cockatiel). Every
// failure ends as a registry problem (faults.ts); what the upstream said goes to the log only.
import {
  BrokenCircuitError, BulkheadRejectedError, bulkhead, circuitBreaker, ConsecutiveBreaker, ExponentialBackoff, handleWhen, retry, wrap,
  type IBackoff, type IBackoffFactory, type IRetryBackoffContext
} from 'cockatiel'
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { Dispatcher, Pool } from 'undici'
import type { SourceLog } from '../source.js'
import { faultOfError, faultOfStatus, isFailure, isRetryable, problemOfFault, requestedWait, UpstreamFault, type Fault } from './faults.js'

export interface UpstreamOptions {
  /** The upstream's origin (scheme, host, port), e.g. 'https://api.example.com'. Every URL fetched must be on it. */
  readonly origin: string
  /**
   * What a caller's problem calls the upstream ('catalogue': `The upstream "catalogue" could not be
   * reached.`); without it, just "the upstream". Never its origin, which is the layout behind the
   * gateway: the origin is logged, for the operator.
   */
  readonly name?: string
  /** Headers sent with every request: the gateway's own credentials for this upstream. Never logged. */
  readonly headers?: Readonly<Record<string, string>>
  /** Per attempt: to connect (default 2000 ms), to receive the headers (5000) and between body chunks (5000). */
  readonly timeouts?: { readonly connectMs?: number, readonly headersMs?: number, readonly bodyMs?: number }
  /** The most one call may take, retries and waits included (default 10000). */
  readonly deadlineMs?: number
  /**
   * Bounded retries of a GET, and of a call sent with an Idempotency-Key: attempts after the first (default 2), exponential backoff
   * with jitter from baseMs (100) to maxMs (2000); a Retry-After from the upstream is honoured when it
   * fits in the deadline, otherwise no retry.
   */
  readonly retries?: { readonly attempts?: number, readonly baseMs?: number, readonly maxMs?: number }
  /**
   * Circuit breaker: opens after `failures` consecutive failures (default 5), half-opens after
   * halfOpenAfterMs (default 10000). While open, calls fail at once with AG_UPSTREAM_UNAVAILABLE and a
   * Retry-After of the seconds left (at least 1).
   */
  readonly breaker?: { readonly failures?: number, readonly halfOpenAfterMs?: number }
  /**
   * The most calls in flight to this upstream (default 16), and how many may wait (default 64); beyond
   * that AG_UPSTREAM_UNAVAILABLE with Retry-After 1.
   */
  readonly concurrency?: { readonly limit?: number, readonly queue?: number }
  /** The largest body read, in bytes (default 32 MiB); a larger one is AG_UPSTREAM_FAILED. */
  readonly maxBytes?: number
  /**
   * Where a call's failures are told when the call is given no log of its own
   * (`UpstreamGetOptions.log`): a pino-like logger (an object, then a message).
   */
  readonly log?: SourceLog
  /** Told of every call once it ends, retries included: how it ended and how long it took (metrics). */
  readonly observer?: UpstreamObserver
}

/** How a call ended, as metrics label it: a bounded set. */
export type UpstreamOutcome = 'ok' | 'timeout' | 'refused' | '5xx' | '4xx' | 'breaker_open' | 'queue_full' | 'invalid' | 'cancelled'

export interface UpstreamObserver {
  readonly call: (origin: string, outcome: UpstreamOutcome, seconds: number) => void
}

export interface UpstreamResponse {
  readonly url: URL
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The body, parsed from JSON. */
  readonly body: unknown
}

export interface UpstreamGetOptions {
  /** The caller's signal: when it aborts, so does the upstream call, with the caller's reason. */
  readonly signal?: AbortSignal
  /** `'absent'`: a 404 means the record does not exist (undefined), not a failure of the upstream. */
  readonly notFound?: 'absent'
  /** The id of the request this call serves, sent as `X-Request-Id`. */
  readonly requestId?: string
  /**
   * Where this call's failures are told, and the circuit it opens, if it does: the log of the
   * request it serves, which names it on every line (default: the client's `log`).
   */
  readonly log?: SourceLog
}

/** The methods an action sends with. */
export type UpstreamMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface UpstreamSendOptions extends UpstreamGetOptions {
  /** Sent as `Idempotency-Key`: the call is then retried as a GET is, the upstream acting once. */
  readonly idempotencyKey?: string
}

export interface UpstreamClient {
  /** The upstream's origin, as the URL standard writes it. */
  readonly origin: string
  /** What problems call the upstream (`UpstreamOptions.name`). */
  readonly name: string | undefined
  /**
   * GET a path (resolved against the origin) or an absolute URL, which must be on the origin
   * (otherwise AG_UPSTREAM_FAILED, logged: this is how a `next` link off the origin is refused). 2xx
   * with a JSON body: the response. 404: undefined when `notFound: 'absent'`, else AG_UPSTREAM_FAILED.
   */
  get: (target: string | URL, options?: UpstreamGetOptions) => Promise<UpstreamResponse | undefined>
  /**
   * Sends `body` as JSON with `method` (an action's call; `undefined`: no body, nor Content-Type),
   * under the same deadline, breaker, cap and credentials as a GET, and answers as a GET does. It is not retried, as a call that changes
   * something may not be: unless it carries an `idempotencyKey`, sent as `Idempotency-Key`, with
   * which an upstream that honours it acts once however often it is asked.
   */
  send: (method: UpstreamMethod, target: string | URL, body: unknown, options?: UpstreamSendOptions) => Promise<UpstreamResponse | undefined>
  /** Closes the pool, once the calls in flight are answered. */
  close: () => Promise<void>
}

/** At most this much of an upstream's body goes to the log. */
const EXCERPT_CHARS = 512

/** A client for the upstream at `options.origin`; throws a RangeError for options it cannot use. */
export function upstreamClient (options: UpstreamOptions): UpstreamClient {
  const settings = settingsOf(options)
  const { origin, name } = settings
  // Made at the first call, with undici loaded then: a gateway that declares an upstream it never
  // calls (or none at all) never loads the client's modules. The options were checked above.
  let pooling: Promise<Pool> | undefined
  const pooled = async (): Promise<Pool> => await (pooling ??= import('undici').then(({ Pool }) => new Pool(origin, {
    // As many connections as calls in flight: nothing ever waits in undici's queue, unseen.
    connections: settings.limit,
    connect: { timeout: settings.connectMs },
    headersTimeout: settings.headersMs,
    bodyTimeout: settings.bodyMs,
    maxResponseSize: settings.maxBytes
  })))
  const headers = requestHeaders(options.headers ?? {})

  // Shared by every call: the breaker counts consecutive failures across them, the bulkhead caps them.
  const breaker = circuitBreaker(handleWhen((error) => error instanceof UpstreamFault && isFailure(error.fault)), {
    halfOpenAfter: settings.halfOpenAfterMs,
    breaker: new ConsecutiveBreaker(settings.failures)
  })
  const cap = bulkhead(settings.limit, settings.queue)
  let openedAt = 0
  breaker.onBreak((reason) => {
    openedAt = Date.now()
    // Only a call's fault opens it (the breaker's filter): told in the log of the call it ended.
    const { log } = (reason as { error: CallFault }).error
    log?.warn({ origin, failures: settings.failures, halfOpenAfterMs: settings.halfOpenAfterMs }, 'upstream circuit open')
  })

  // Retry outermost, then the breaker, then the bulkhead innermost. The breaker sees every attempt,
  // so retries against a dead upstream open it sooner, and once open the retry stops at once (an
  // open circuit is not retried). The bulkhead counts requests on the wire, the pool's connections:
  // a call waiting out a backoff holds no slot, a call the open circuit refuses never takes a place
  // in the queue, and a refusal for want of room is neither retried nor counted against the
  // upstream, which did not fail. Built once: whether a fault is worth another attempt within its
  // own call's deadline is decided where the fault is made, and carried by it.
  const policy = wrap(retry(handleWhen((error) => error instanceof UpstreamFault && error.retryable), {
    maxAttempts: settings.attempts,
    backoff: honouring(new ExponentialBackoff({ initialDelay: settings.baseMs, maxDelay: settings.maxMs }))
  }), breaker, cap)
  // A call that may change something, sent once: the breaker and the cap, no retry.
  const once = wrap(breaker, cap)

  /** One attempt: the request, then its answer read whole, or the fault it is (told to the call's log). */
  async function attempt (url: URL, number: number, call: Call, notFound: 'absent' | undefined, sent: Sent): Promise<UpstreamResponse | undefined> {
    const path = url.pathname + url.search
    const { signal, log } = call
    const told = (fault: Fault, details: object): UpstreamFault => {
      log?.warn({ origin, path, attempt: number, ...details }, 'upstream call failed')
      return new CallFault(fault, isRetryable(fault, call.endsAt - Date.now()), log)
    }
    try {
      const answer = await (await pooled()).request({ path, method: sent.method, headers: sent.headers, body: sent.body, signal })
      const status = answer.statusCode
      if (status >= 200 && status < 300) {
        const text = await answer.body.text()
        try {
          return { url, status, headers: answer.headers, body: JSON.parse(text) }
        } catch {
          throw told({ kind: 'not-json' }, { status, body: text.slice(0, EXCERPT_CHARS) })
        }
      }
      if (status === 404 && notFound === 'absent') {
        await answer.body.dump()
        return undefined
      }
      const excerpt = await excerptOf(answer.body)
      throw told(faultOfStatus(status, answer.headers['retry-after'], Date.now()), { status, body: excerpt })
    } catch (error) {
      if (error instanceof UpstreamFault || signal.aborted) throw error
      const fault = faultOfError(error)
      if (fault === undefined) throw error
      const { code, message } = error as { code?: unknown, message?: unknown }
      throw told(fault, { code, message })
    }
  }

  /** One call, its retries included: the response, or the problem it ends in and how to count it. */
  async function called (url: URL, caller: AbortSignal | undefined, notFound: 'absent' | undefined, sent: Sent, log: SourceLog | undefined): Promise<UpstreamResponse | undefined> {
    const call = startCall(settings.deadlineMs, caller, log)
    // A GET, or a call the upstream acts on once by its key, is retried; any other call is sent once.
    const policed = sent.method === 'GET' || sent.headers['idempotency-key'] !== undefined ? policy : once
    try {
      return await call.bound(policed.execute((context) => attempt(url, ('attempt' in context ? context.attempt : 0) + 1, call, notFound, sent), call.signal))
    } catch (error) {
      if (caller?.aborted === true) throw ended('cancelled', caller.reason)
      if (error instanceof UpstreamFault) throw ended(outcomeOf(error.fault), problemOfFault(name, error.fault))
      if (error instanceof BrokenCircuitError) throw ended('breaker_open', problemOfFault(name, { kind: 'circuit-open', waitMs: openedAt + settings.halfOpenAfterMs - Date.now() }))
      if (error instanceof BulkheadRejectedError) {
        log?.warn({ origin, limit: settings.limit, queue: settings.queue }, 'upstream calls refused: queue full')
        throw ended('queue_full', problemOfFault(name, { kind: 'queue-full' }))
      }
      // Anything else is a defect, thrown as it is, and counted as an invalid call.
      if (error !== DEADLINE) throw ended('invalid', error)
      log?.warn({ origin, path: url.pathname + url.search, deadlineMs: settings.deadlineMs }, 'upstream call outlasted its deadline')
      throw ended('timeout', problemOfFault(name, { kind: 'timeout' }))
    }
  }

  /** One call of `method` to `target` (a GET, or an action's): its span, its metrics, its problem. */
  async function fetched (target: string | URL, method: 'GET' | UpstreamMethod, body: string | undefined, { signal: caller, notFound, requestId, log = settings.log, idempotencyKey }: UpstreamSendOptions): Promise<UpstreamResponse | undefined> {
    caller?.throwIfAborted()
    const url = target instanceof URL ? target : URL.parse(target, origin)
    if (url?.origin !== origin) {
      // Where it led, without its query: a link's query may carry a token.
      log?.warn({ origin, refused: url === null ? 'not a URL' : url.origin + url.pathname }, 'upstream URL off its origin refused')
      throw problemOfFault(name, { kind: 'off-origin' })
    }
    const started = performance.now()
    const span = tracer.startSpan(`${method} ${origin}`, { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, 'server.address': url.hostname, 'url.path': url.pathname } })
    const finished = (outcome: UpstreamOutcome): void => {
      span.setAttribute('upstream.outcome', outcome)
      span.end()
      settings.observer?.call(origin, outcome, (performance.now() - started) / 1000)
    }
    const sent = callHeaders(headers, requestId, span)
    const withBody = body === undefined ? sent : { ...sent, 'content-type': 'application/json' }
    const keyed = idempotencyKey === undefined ? withBody : { ...withBody, 'idempotency-key': idempotencyKey }
    return await called(url, caller, notFound, { method, headers: keyed, body }, log).then((answer) => {
      finished('ok')
      return answer
    }, (error: Ended) => {
      // `called` throws only what it ended with.
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.outcome })
      finished(error.outcome)
      throw error.error
    })
  }

  return {
    origin,
    name,
    get: async (target, options = {}) => await fetched(target, 'GET', undefined, options),
    // A body of undefined is none (a DELETE's, say): sent without one, its key still sent.
    send: async (method, target, body, options = {}) => await fetched(target, method, body === undefined ? undefined : JSON.stringify(body), options),
    close: async () => { if (pooling !== undefined) await (await pooling).close() }
  }
}

const tracer = trace.getTracer('audience-gateway')

/** What one call sends: its method, its headers and its body, if any. */
interface Sent {
  readonly method: 'GET' | UpstreamMethod
  readonly headers: Record<string, string>
  readonly body?: string
}

/** A fault met by one call, with that call's log: the circuit it opens is told there, under its request. */
class CallFault extends UpstreamFault {
  constructor (fault: Fault, retryable: boolean, readonly log: SourceLog | undefined) {
    super(fault, retryable)
  }
}

/** What a call ended in, carried to where it is counted, then thrown as `error`. */
class Ended {
  constructor (readonly outcome: UpstreamOutcome, readonly error: unknown) {}
}

function ended (outcome: UpstreamOutcome, error: unknown): Ended {
  return new Ended(outcome, error)
}

/** A fault as metrics count it. */
function outcomeOf (fault: Fault): UpstreamOutcome {
  if (fault.kind === 'unreachable') return 'refused'
  if (fault.kind === 'timeout') return 'timeout'
  if (fault.kind === 'status') return fault.status >= 500 ? '5xx' : '4xx'
  return 'invalid'
}

/**
 * The configured headers, plus this call's request id and, when it is traced, its `traceparent`
 * (the propagator registered with the tracer provider writes it): copied only when either is sent.
 */
function callHeaders (configured: Record<string, string>, requestId: string | undefined, span: ReturnType<typeof tracer.startSpan>): Record<string, string> {
  if (requestId === undefined && !span.isRecording()) return configured
  const sent = { ...configured }
  if (requestId !== undefined) sent['x-request-id'] = requestId
  propagation.inject(trace.setSpan(context.active(), span), sent)
  return sent
}

/** The reason a call is aborted with when it outlasts its deadline. */
const DEADLINE = new Error('The upstream call outlasted its deadline.')

/** One call in flight: what aborts its requests, when it must end, and where its failures are told. */
interface Call {
  readonly signal: AbortSignal
  readonly endsAt: number
  readonly log: SourceLog | undefined
  /**
   * `work`, or the reason the call was stopped (its deadline, its caller gone) as soon as it is:
   * the bulkhead's queue and the backoff's sleep do not listen to the signal.
   */
  readonly bound: <T>(work: Promise<T>) => Promise<T>
}

/**
 * A call's deadline and its caller's signal joined in one controller: one timer and one listener,
 * where `AbortSignal.timeout` and `AbortSignal.any` would cost several times as much on every call.
 */
function startCall (deadlineMs: number, caller: AbortSignal | undefined, log: SourceLog | undefined): Call {
  const controller = new AbortController()
  let fail!: (reason: unknown) => void
  const stopped = new Promise<never>((_resolve, reject) => { fail = reject })
  const stop = (reason: unknown): void => {
    controller.abort(reason)
    fail(reason)
  }
  const timer = setTimeout(stop, deadlineMs, DEADLINE)
  const onAbort = (): void => { stop(caller?.reason) }
  caller?.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    endsAt: Date.now() + deadlineMs,
    log,
    bound: async (work) => {
      try {
        return await Promise.race([work, stopped])
      } finally {
        clearTimeout(timer)
        caller?.removeEventListener('abort', onAbort)
      }
    }
  }
}

interface Settings {
  readonly origin: string
  readonly name: string | undefined
  readonly connectMs: number
  readonly headersMs: number
  readonly bodyMs: number
  readonly deadlineMs: number
  readonly attempts: number
  readonly baseMs: number
  readonly maxMs: number
  readonly failures: number
  readonly halfOpenAfterMs: number
  readonly limit: number
  readonly queue: number
  readonly maxBytes: number
  readonly log: UpstreamOptions['log']
  readonly observer: UpstreamOptions['observer']
}

/** The options with their defaults, each checked. */
function settingsOf (options: UpstreamOptions): Settings {
  const { timeouts = {}, retries = {}, breaker = {}, concurrency = {} } = options
  const settings: Settings = {
    origin: originOf(options.origin),
    name: options.name,
    connectMs: counted('timeouts.connectMs', timeouts.connectMs ?? 2000, 1),
    headersMs: counted('timeouts.headersMs', timeouts.headersMs ?? 5000, 1),
    bodyMs: counted('timeouts.bodyMs', timeouts.bodyMs ?? 5000, 1),
    deadlineMs: counted('deadlineMs', options.deadlineMs ?? 10_000, 1),
    attempts: counted('retries.attempts', retries.attempts ?? 2, 0),
    baseMs: counted('retries.baseMs', retries.baseMs ?? 100, 1),
    maxMs: counted('retries.maxMs', retries.maxMs ?? 2000, 1),
    failures: counted('breaker.failures', breaker.failures ?? 5, 1),
    halfOpenAfterMs: counted('breaker.halfOpenAfterMs', breaker.halfOpenAfterMs ?? 10_000, 1),
    limit: counted('concurrency.limit', concurrency.limit ?? 16, 1),
    queue: counted('concurrency.queue', concurrency.queue ?? 64, 0),
    maxBytes: counted('maxBytes', options.maxBytes ?? 32 * 1024 * 1024, 1),
    log: options.log,
    observer: options.observer
  }
  if (settings.maxMs < settings.baseMs) throw new RangeError(`Upstream option retries.maxMs (${settings.maxMs}) is below retries.baseMs (${settings.baseMs}).`)
  return settings
}

/** `value`, when it is an integer of at least `least`. */
function counted (name: string, value: number, least: 0 | 1): number {
  if (!Number.isSafeInteger(value) || value < least) {
    throw new RangeError(`Upstream option ${name} must be ${least === 1 ? 'a positive' : 'a non-negative'} integer; got ${String(value)}.`)
  }
  return value
}

/** The origin as the URL standard writes it: http(s), no credentials, nothing after the host and port. */
function originOf (value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new RangeError('Upstream option origin must be an http: or https: URL, like \'https://api.example.com\'.')
  }
  if (url.username !== '' || url.password !== '') throw new RangeError('Upstream option origin must not carry credentials: send them in `headers`.')
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new RangeError(`Upstream option origin must be an origin only (${url.origin}), without a path, query or fragment.`)
  }
  return url.origin
}

/** What every request sends: JSON accepted, then the configured headers (names lower-cased, so one wins). */
function requestHeaders (configured: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries([['accept', 'application/json'], ...Object.entries(configured).map(([name, value]) => [name.toLowerCase(), value])])
}

/** The exponential backoff, stretched to the wait the upstream asked for (`Retry-After`), if longer. */
function honouring (exponential: IBackoffFactory<unknown>): IBackoffFactory<IRetryBackoffContext<unknown>> {
  return { next: (context) => step(exponential.next(context), context) }
}

function step (backoff: IBackoff<unknown>, context: IRetryBackoffContext<unknown>): IBackoff<IRetryBackoffContext<unknown>> {
  // Only an UpstreamFault is retried (the retry's filter), so the failure is one.
  const { error } = context.result as { error: UpstreamFault }
  return { duration: Math.max(backoff.duration, requestedWait(error.fault)), next: (following) => step(backoff.next(following), following) }
}

/** The first characters of an error's body, for the log; the rest is not read (the body is destroyed). */
async function excerptOf (body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = ''
  for await (const chunk of body.setEncoding('utf8')) {
    text += chunk as string
    if (text.length >= EXCERPT_CHARS) break
  }
  return text.slice(0, EXCERPT_CHARS)
}
