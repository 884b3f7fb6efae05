// What the contract refuses at the edges, on the real app: every form of an integer but the
// canonical one, a repeated parameter, every offending argument named at once, a method a path is
// not served with, and a path no route serves. Each answer is a problem as published.
import t from 'tap'
import { NOT_CANONICAL, REPEATED_ARGUMENT, TOO_LARGE, UNKNOWN_ARGUMENT } from '../../src/core/arguments.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'
import { expectProblem, problemBody, PROBLEM_JSON } from '../helpers/problem.js'

const { app } = await buildApp(t)

/** The problem `url` is answered with: its status and `errors`. */
async function refusal (url: string, headers: Record<string, string> = AGENT, method: 'GET' | 'POST' = 'GET'): Promise<{ status: number, errors: unknown, allow: unknown }> {
  const res = await app.inject({ method, url, headers })
  t.equal(res.headers['content-type'], PROBLEM_JSON, url)
  return { status: res.statusCode, errors: problemBody(res).errors, allow: res.headers.allow }
}

const NON_CANONICAL = ['0x10', '1e2', '+5', '1.0', '1.5', '05', '00', '-0', ' 7', '7 ', '', 'Infinity', 'NaN', '١٢', '0b11', '1_000']

t.test('a path id in any form but canonical decimal digits is a 400 naming it', async (t) => {
  for (const id of NON_CANONICAL.filter((id) => id !== '' && !id.includes(' '))) {
    t.strictSame(await refusal(`/books/${encodeURIComponent(id)}`), { status: 400, errors: { id: [NOT_CANONICAL] }, allow: undefined }, id)
  }
  t.equal((await app.inject({ url: '/books/3', headers: AGENT })).statusCode, 200, 'the canonical form is served')
})

t.test('window parameters in any form but canonical decimal digits are a 400 naming each', async (t) => {
  for (const value of NON_CANONICAL) {
    const encoded = encodeURIComponent(value)
    t.strictSame(await refusal(`/ledger?offset=${encoded}&limit=${encoded}`), { status: 400, errors: { offset: [NOT_CANONICAL], limit: [NOT_CANONICAL] }, allow: undefined }, value)
    t.strictSame(await refusal(`/books/1/text?start_line=${encoded}`), { status: 400, errors: { start_line: [NOT_CANONICAL] }, allow: undefined }, value)
  }
})

t.test('an integer past 2^53 is refused, never served altered', async (t) => {
  t.strictSame(await refusal('/ledger?offset=9007199254740993'), { status: 400, errors: { offset: [TOO_LARGE] }, allow: undefined })
  t.strictSame(await refusal('/books/1/text?end_line=1' + '0'.repeat(308)), { status: 400, errors: { end_line: [TOO_LARGE] }, allow: undefined })
  const largest = await app.inject({ url: '/ledger?offset=9007199254740991', headers: AGENT })
  t.equal(largest.statusCode, 200)
  t.equal(largest.json().offset, 9007199254740991, 'the largest exact integer is echoed as sent')
})

t.test('a parameter given twice is refused as given twice', async (t) => {
  t.strictSame(await refusal('/books?page=1&page=2'), { status: 400, errors: { page: [REPEATED_ARGUMENT] }, allow: undefined })
  t.strictSame(await refusal('/books/1/text?start_line=1&start_line=1'), { status: 400, errors: { start_line: [REPEATED_ARGUMENT] }, allow: undefined })
})

t.test('a plain client is told of every offending argument at once', async (t) => {
  const { status, errors } = await refusal('/ledger?offset=1&foo=1&limit=abc', {})
  t.equal(status, 400)
  t.strictSame(Object.keys(errors as object).sort(), ['foo', 'limit', 'offset'])
  t.strictSame((errors as Record<string, string[]>).foo, [UNKNOWN_ARGUMENT])
  t.match((errors as Record<string, string[]>).offset, [/^Paging applies to agents only/])
  t.match((errors as Record<string, string[]>).limit, [NOT_CANONICAL, /^Paging applies to agents only/])
})

t.test('a method a path is not served with is a 405 naming the methods it is', async (t) => {
  t.strictSame(await refusal('/books', AUTH, 'POST'), { status: 405, errors: undefined, allow: 'GET, HEAD, OPTIONS' })
  const res = await app.inject({ method: 'DELETE', url: '/books/1', headers: AUTH })
  expectProblem(t, res, { status: 405, kind: 'method-not-allowed', detail: 'This path is served with GET, HEAD, OPTIONS only.' })
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
  t.ok(res.headers['x-content-type-options'], 'with the security headers')
})

t.test('OPTIONS on a served path answers which methods it is served with', async (t) => {
  const res = await app.inject({ method: 'OPTIONS', url: '/books/1/text' })
  t.equal(res.statusCode, 204)
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(res.body, '')
  t.equal((await app.inject({ method: 'OPTIONS', url: '/nowhere' })).statusCode, 404)
})

t.test('a path that only looks like a record\'s, with its id empty, is no route', async (t) => {
  expectProblem(t, await app.inject({ url: '/books/', headers: AUTH }), { status: 404, kind: 'not-found' })
})
