import t from 'tap'
import { problemOf, STORE_UNAVAILABLE_DETAIL } from '../../../src/core/problem.js'
import { isStoreUnavailable, StoreUnavailableError } from '../../../src/store/errors.js'

function failure (fields: Record<string, unknown>, message = 'boom'): Error {
  return Object.assign(new Error(message), fields)
}

t.test('SQLite failures of reach are unavailability, extended codes included', async (t) => {
  for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_IOERR_READ', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_PROTOCOL']) {
    t.ok(isStoreUnavailable(failure({ code })), code)
  }
})

t.test('SQLite defects are not: a bad query stays a 500', async (t) => {
  for (const code of ['SQLITE_ERROR', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_MISMATCH', 'SQLITE_BUSYNESS']) {
    t.notOk(isStoreUnavailable(failure({ code })), code)
  }
})

t.test('a closed connection is unavailability, whichever layer says so', async (t) => {
  t.ok(isStoreUnavailable(new TypeError('The database connection is not open')))
  t.ok(isStoreUnavailable(new Error('driver has already been destroyed')))
})

t.test('PostgreSQL out of reach: network errors and connection SQLSTATEs', async (t) => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '08006', '08001', '57P01', '57P03', '53300']) {
    t.ok(isStoreUnavailable(failure({ code })), code)
  }
  for (const code of ['42P01', '23505', '22P02']) t.notOk(isStoreUnavailable(failure({ code })), code)
})

t.test('a failure on every address, or one wrapped with its cause, is judged by what is inside', async (t) => {
  t.ok(isStoreUnavailable(new AggregateError([failure({ code: 'ECONNREFUSED' }), failure({ code: 'ECONNREFUSED' })])))
  t.notOk(isStoreUnavailable(new AggregateError([new Error('one'), new Error('two')])))
  t.ok(isStoreUnavailable(new Error('query failed', { cause: failure({ code: '57P01' }) })))
})

t.test('anything else is not', async (t) => {
  for (const thrown of [undefined, null, 'SQLITE_BUSY', 42, new Error('boom'), failure({ code: 503 })]) {
    t.notOk(isStoreUnavailable(thrown), String(thrown))
  }
})

t.test('a store failure becomes a 503 store-unavailable problem that keeps its message to itself', async (t) => {
  const { status, body } = problemOf(failure({ code: 'SQLITE_BUSY' }, 'database is locked'))
  t.equal(status, 503)
  t.strictSame(body, { type: 'urn:audience-gateway:problem:store-unavailable', title: 'Store unavailable', status: 503, detail: STORE_UNAVAILABLE_DETAIL })
})

t.test('the gateway\'s own finding (no connection in time, a file moved) and pg\'s pool timeout are unavailability', async (t) => {
  t.ok(isStoreUnavailable(new StoreUnavailableError('no reader came free within 3000 ms')))
  t.ok(isStoreUnavailable(new Error('timeout exceeded when trying to connect')))
  // A server that takes the connection and never answers, or drops it: pg's own words.
  t.ok(isStoreUnavailable(new Error('Connection terminated due to connection timeout', { cause: new Error('Connection terminated unexpectedly') })))
  t.ok(isStoreUnavailable(new Error('Connection terminated unexpectedly')))
  const { status, headers } = problemOf(new StoreUnavailableError('the file at data/x.sqlite is not the one opened'))
  t.equal(status, 503)
  t.equal(headers['Retry-After'], '5')
})
