// The rules an upstream failure goes by: what a network error or a status is, whether it is retried
// or counted against the circuit, and the problem the gateway's client sees for it.
import { errors } from 'undici'
import t from 'tap'
import { problemType } from '../../../../src/core/errors.js'
import { problemOf } from '../../../../src/core/problem.js'
import {
  DEFAULT_WAIT_MS, faultOfError, faultOfStatus, isFailure, isRetryable, problemOfFault, requestedWait, retryAfterSeconds, UpstreamFault, waitOf, type Fault
} from '../../../../src/sources/upstream/faults.js'

/** What problems call the upstream: its declared name, never its origin. */
const NAME = 'catalogue'
const NOW = Date.parse('2025-01-01T00:00:00Z')

function coded (code: unknown): Error {
  return Object.assign(new Error('what the network said'), { code })
}

t.test('connection failures are unreachable: refused, reset, unresolved, a socket closed, a TLS refusal', async (t) => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER']) {
    t.strictSame(faultOfError(coded(code)), { kind: 'unreachable' }, code)
  }
  t.strictSame(faultOfError(new errors.SocketError('other side closed')), { kind: 'unreachable' }, 'undici SocketError')
})

t.test('undici\'s timeouts and the system\'s are timeouts', async (t) => {
  for (const error of [new errors.ConnectTimeoutError(), new errors.HeadersTimeoutError(), new errors.BodyTimeoutError(), coded('ETIMEDOUT')]) {
    t.strictSame(faultOfError(error), { kind: 'timeout' }, error.name)
  }
})

t.test('a body over the cap is too large; broken HTTP is malformed', async (t) => {
  t.strictSame(faultOfError(new errors.ResponseExceededMaxSizeError()), { kind: 'too-large' })
  t.strictSame(faultOfError(coded('HPE_INVALID_HEADER_TOKEN')), { kind: 'malformed' }, 'llhttp\'s parser error')
  t.strictSame(faultOfError(new errors.ResponseContentLengthMismatchError()), { kind: 'malformed' })
  t.strictSame(faultOfError(new errors.HeadersOverflowError()), { kind: 'malformed' })
})

t.test('a connection tried on several addresses, or a wrapped error, is what its parts are', async (t) => {
  t.strictSame(faultOfError(new AggregateError([new Error('no code'), coded('ECONNREFUSED')], 'every address refused')), { kind: 'unreachable' })
  t.strictSame(faultOfError(new Error('wrapper', { cause: new errors.HeadersTimeoutError() })), { kind: 'timeout' })
  t.strictSame(faultOfError(new AggregateError([new Error('no code')], 'nothing known', { cause: coded('ENOTFOUND') })), { kind: 'unreachable' })
})

t.test('anything else is no fault of the upstream\'s: a defect, thrown on as it is', async (t) => {
  for (const error of [new errors.InvalidArgumentError('bad header'), new Error('plain'), coded(42), coded('EWHATEVER'), new AggregateError([], 'empty'), 'a string', null, undefined]) {
    t.equal(faultOfError(error), undefined, String(error))
  }
})

t.test('a status is a fault with the wait its Retry-After asks for; a 429 always has one', async (t) => {
  t.strictSame(faultOfStatus(500, undefined, NOW), { kind: 'status', status: 500 })
  t.strictSame(faultOfStatus(503, '7', NOW), { kind: 'status', status: 503, waitMs: 7000 })
  t.strictSame(faultOfStatus(429, '2', NOW), { kind: 'status', status: 429, waitMs: 2000 })
  t.strictSame(faultOfStatus(429, undefined, NOW), { kind: 'status', status: 429, waitMs: DEFAULT_WAIT_MS })
  t.strictSame(faultOfStatus(429, 'soon', NOW), { kind: 'status', status: 429, waitMs: DEFAULT_WAIT_MS }, 'unreadable: the default')
  t.strictSame(faultOfStatus(401, undefined, NOW), { kind: 'status', status: 401 })
})

t.test('Retry-After in seconds or as an HTTP-date, read against now', async (t) => {
  t.equal(waitOf('120', NOW), 120_000)
  t.equal(waitOf(' 0 ', NOW), 0)
  t.equal(waitOf(['3', '9'], NOW), 3000, 'the first of repeated headers')
  t.equal(waitOf(new Date(NOW + 61_000).toUTCString(), NOW), 61_000)
  t.equal(waitOf('Sun, 06 Nov 1994 08:49:37 GMT', NOW), 0, 'a date gone by: no wait')
  for (const unreadable of [undefined, '', '  ', '-1', '1.5', 'Someday', []]) t.equal(waitOf(unreadable, NOW), undefined, JSON.stringify(unreadable))
})

t.test('the upstream failing counts against its circuit; a 429, a 4xx, an unreadable body do not', async (t) => {
  const failing: Fault[] = [{ kind: 'unreachable' }, { kind: 'timeout' }, { kind: 'status', status: 500 }, { kind: 'status', status: 503, waitMs: 1000 }]
  const notFailing: Fault[] = [
    { kind: 'status', status: 429, waitMs: 1000 }, { kind: 'status', status: 404 }, { kind: 'status', status: 401 }, { kind: 'status', status: 403 },
    { kind: 'malformed' }, { kind: 'not-json' }, { kind: 'too-large' }, { kind: 'off-origin' }, { kind: 'circuit-open', waitMs: 1000 }, { kind: 'queue-full' }
  ]
  for (const fault of failing) t.ok(isFailure(fault), JSON.stringify(fault))
  for (const fault of notFailing) t.notOk(isFailure(fault), JSON.stringify(fault))
})

t.test('a failure or a 429 is retried when the wait asked for ends before the deadline', async (t) => {
  t.ok(isRetryable({ kind: 'unreachable' }, 1))
  t.ok(isRetryable({ kind: 'timeout' }, 1))
  t.ok(isRetryable({ kind: 'status', status: 502 }, 1), 'a 5xx asking nothing: the backoff decides')
  t.ok(isRetryable({ kind: 'status', status: 503, waitMs: 2000 }, 2001))
  t.notOk(isRetryable({ kind: 'status', status: 503, waitMs: 2000 }, 2000), 'a wait to the deadline does not fit')
  t.ok(isRetryable({ kind: 'status', status: 429, waitMs: 0 }, 1))
  t.notOk(isRetryable({ kind: 'status', status: 429, waitMs: 120_000 }, 10_000))
  for (const fault of [{ kind: 'status', status: 401 }, { kind: 'status', status: 404 }, { kind: 'not-json' }, { kind: 'too-large' }, { kind: 'malformed' }, { kind: 'queue-full' }] as Fault[]) {
    t.notOk(isRetryable(fault, 10_000), JSON.stringify(fault))
  }
})

t.test('the wait a retry honours is the one the upstream asked for, else none', async (t) => {
  t.equal(requestedWait({ kind: 'status', status: 429, waitMs: 1500 }), 1500)
  t.equal(requestedWait({ kind: 'status', status: 500 }), 0)
  t.equal(requestedWait({ kind: 'timeout' }), 0)
})

t.test('a Retry-After is whole seconds, at least 1', async (t) => {
  t.strictSame([0, 1, 999, 1000, 1001, 59_500, 300_000, 300_001, 999_999_000].map(retryAfterSeconds), [1, 1, 1, 1, 2, 60, 300, 300, 300], 'whole seconds, 1 to 300')
})

t.test('each fault is its registry problem, naming the upstream by its origin only', async (t) => {
  const cases: Array<[Fault, number, string, string]> = [
    [{ kind: 'unreachable' }, 502, 'AG_UPSTREAM_UNREACHABLE', 'The upstream "catalogue" could not be reached.'],
    [{ kind: 'timeout' }, 504, 'AG_UPSTREAM_TIMEOUT', 'The upstream "catalogue" did not answer in time.'],
    [{ kind: 'malformed' }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" answered something that is not well-formed HTTP.'],
    [{ kind: 'not-json' }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" answered something that is not JSON.'],
    [{ kind: 'too-large' }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" answered a body larger than the gateway reads.'],
    [{ kind: 'off-origin' }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" linked off its origin, which the gateway does not follow.'],
    [{ kind: 'status', status: 500 }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" answered with an error (HTTP 500).'],
    [{ kind: 'status', status: 503, waitMs: 3000 }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" answered with an error (HTTP 503).'],
    [{ kind: 'status', status: 400 }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" answered with an error (HTTP 400).'],
    [{ kind: 'status', status: 401 }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" refused the gateway\'s credentials (HTTP 401).'],
    [{ kind: 'status', status: 403 }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" refused the gateway\'s credentials (HTTP 403).'],
    [{ kind: 'status', status: 404 }, 502, 'AG_UPSTREAM_FAILED', 'The upstream "catalogue" has nothing where the gateway expected a resource (HTTP 404).']
  ]
  for (const [fault, status, code, detail] of cases) {
    const error = problemOfFault(NAME, fault) as Error & { code: string }
    t.equal(error.code, code, JSON.stringify(fault))
    const answered = problemOf(error)
    t.strictSame(answered.status, status)
    t.strictSame(answered.body.detail, detail)
    t.strictSame(answered.headers, {}, 'no Retry-After on a 502 or 504')
  }
})

t.test('slow down, circuit open, queue full: a 503 with the seconds to wait', async (t) => {
  const cases: Array<[Fault, string, string]> = [
    [{ kind: 'status', status: 429, waitMs: 2500 }, '3', 'The upstream "catalogue" asks the gateway to slow down. Retry after 3 s.'],
    [{ kind: 'status', status: 429 }, '5', 'The upstream "catalogue" asks the gateway to slow down. Retry after 5 s.'],
    [{ kind: 'circuit-open', waitMs: 400 }, '1', 'The upstream "catalogue" is failing; the gateway leaves it alone for a while. Retry after 1 s.'],
    [{ kind: 'circuit-open', waitMs: 9001 }, '10', 'The upstream "catalogue" is failing; the gateway leaves it alone for a while. Retry after 10 s.'],
    [{ kind: 'status', status: 429, waitMs: 999_999_000 }, '300', 'The upstream "catalogue" asks the gateway to slow down. Retry after 300 s.'],
    [{ kind: 'circuit-open', waitMs: 3_600_000 }, '300', 'The upstream "catalogue" is failing; the gateway leaves it alone for a while. Retry after 300 s.'],
    [{ kind: 'queue-full' }, '1', 'The upstream "catalogue": too many calls to it are waiting already. Retry after 1 s.']
  ]
  for (const [fault, seconds, detail] of cases) {
    const answered = problemOf(problemOfFault(NAME, fault))
    t.strictSame(answered, {
      status: 503,
      body: { type: problemType('AG_UPSTREAM_UNAVAILABLE'), title: 'Upstream unavailable', status: 503, detail },
      headers: { 'Retry-After': seconds }
    }, JSON.stringify(fault))
  }
})

t.test('an upstream without a name is "the upstream"; its origin is never said', async (t) => {
  t.equal(problemOf(problemOfFault(undefined, { kind: 'timeout' })).body.detail, 'The upstream did not answer in time.')
  t.equal(problemOf(problemOfFault(undefined, { kind: 'queue-full' })).body.detail, 'The upstream: too many calls to it are waiting already. Retry after 1 s.')
})

t.test('a fault in flight carries what happened, and nothing the upstream said', async (t) => {
  const error = new UpstreamFault({ kind: 'status', status: 500 })
  t.ok(error instanceof Error)
  t.equal(error.name, 'UpstreamFault')
  t.strictSame(error.fault, { kind: 'status', status: 500 })
  t.equal(error.message, 'The upstream call failed: status.')
})
