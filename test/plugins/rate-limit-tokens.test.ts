// Rate limits with tokens, from local issuers: a token's caller is its subject (its issuer and `sub`),
// so every token of one subject draws on one budget, another subject (or the same `sub` at another
// issuer) has its own, and a 429 says "this token"; a key's budget and its 429 are as before.
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import audience from '../../plugins/audience.js'
import auth from '../../plugins/auth.js'
import problems from '../../plugins/problems.js'
import rateLimit from '../../plugins/rate-limit.js'
import requestId from '../../plugins/request-id.js'
import { ASYMMETRIC_ALGORITHMS } from '../../src/identity/tokens.js'
import { signedIn } from '../../src/permissions.js'
import { startIssuer } from '../helpers/issuer.js'

const KEY = 'k1-0123456789abcdefghij'
const AUDIENCE = 'https://gateway.example.com/'

const issuer = await startIssuer(AUDIENCE)
const otherIssuer = await startIssuer(AUDIENCE)
t.teardown(issuer.close)
t.teardown(otherIssuer.close)

/** Two requests per minute per caller, tokens of both issuers taken beside the key. */
async function build (t: Test): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(requestId)
  await app.register(audience)
  await app.register(auth, {
    keys: [KEY],
    identity: {
      issuers: [issuer, otherIssuer].map(({ issuer }) => ({ issuer, algorithms: [...ASYMMETRIC_ALGORITHMS] })),
      audience: AUDIENCE,
      clockToleranceSeconds: 0
    }
  })
  await app.register(rateLimit, { max: 2, windowSeconds: 60 })
  await app.register(problems)
  app.get('/books', { config: { permissions: [signedIn] } }, async () => 'ok')
  t.teardown(() => app.close())
  return app
}

const TOO_MANY_FOR_A_TOKEN = /^Too many requests: this token may make 2 per 60 s\. Retry after \d+ s\.$/

async function get (app: FastifyInstance, credential: string): Promise<LightMyRequestResponse> {
  return await app.inject({ url: '/books', headers: { authorization: `Bearer ${credential}` } })
}

t.test('two tokens of one subject share its budget: the third request, whichever token it bears, is a 429 saying "this token"', async (t) => {
  const app = await build(t)
  const first = await issuer.sign({ jti: 'first' })
  const second = await issuer.sign({ jti: 'second', scope: 'books:read' })
  t.not(first, second, 'two different tokens')
  for (const [token, remaining] of [[first, '1'], [second, '0']]) {
    const res = await get(app, token)
    t.equal(res.statusCode, 200)
    t.equal(res.headers['x-ratelimit-remaining'], remaining)
  }
  for (const token of [first, second]) {
    const res = await get(app, token)
    t.equal(res.statusCode, 429)
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
    t.ok(Number(res.headers['retry-after']) > 0 && Number(res.headers['retry-after']) <= 60, `Retry-After ${res.headers['retry-after']}`)
    t.match(res.json(), { type: 'urn:audience-gateway:problem:rate-limited', status: 429, detail: TOO_MANY_FOR_A_TOKEN })
  }
  const fresh = await get(app, await issuer.sign({ jti: 'third' }))
  t.equal(fresh.statusCode, 429, 'a token signed after the budget ran out draws on the same budget')
})

t.test('another subject of the same issuer, or the same sub at another issuer, has its own full budget', async (t) => {
  const app = await build(t)
  for (let i = 0; i < 2; i++) t.equal((await get(app, await issuer.sign())).statusCode, 200)
  t.equal((await get(app, await issuer.sign())).statusCode, 429, 'user-1 has spent its budget')
  for (const [what, sign] of [
    ['another subject', async () => await issuer.sign({ sub: 'user-2' })],
    ['user-1 of another issuer', async () => await otherIssuer.sign({ iss: otherIssuer.issuer })]
  ] as const) {
    for (const remaining of ['1', '0']) {
      const res = await get(app, await sign())
      t.equal(res.statusCode, 200, what)
      t.equal(res.headers['x-ratelimit-remaining'], remaining, what)
    }
    const refused = await get(app, await sign())
    t.equal(refused.statusCode, 429, `${what}: its own budget spent`)
    t.match(refused.json().detail, TOO_MANY_FOR_A_TOKEN)
  }
})

t.test('a key beside tokens keeps its own budget, and its 429 says "this key"', async (t) => {
  const app = await build(t)
  for (let i = 0; i < 3; i++) await get(app, await issuer.sign())
  for (const remaining of ['1', '0']) t.equal((await get(app, KEY)).headers['x-ratelimit-remaining'], remaining, 'the tokens spent none of the key\'s budget')
  const refused = await get(app, KEY)
  t.equal(refused.statusCode, 429)
  t.match(refused.json().detail, /^Too many requests: this key may make 2 per 60 s\. Retry after \d+ s\.$/)
})

t.test('a refused token costs its subject no budget', async (t) => {
  const app = await build(t)
  for (let i = 0; i < 3; i++) t.equal((await get(app, await issuer.sign({ exp: Math.floor(Date.now() / 1000) - 60 }))).statusCode, 401, 'expired')
  t.equal((await get(app, await issuer.sign())).headers['x-ratelimit-remaining'], '1', 'user-1\'s budget is whole')
})
