// Bearer tokens beside keys, from a local issuer: a valid token passes with its scopes, a bad one is
// a 401 saying why (with the resource metadata's URL in its challenge), a missing scope a 403 naming
// it, keys keep working (even while the issuer is down, when a token is a 503), tokens never logged.
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import audience from '../../plugins/audience.js'
import auth from '../../plugins/auth.js'
import problems from '../../plugins/problems.js'
import requestId from '../../plugins/request-id.js'
import { ASYMMETRIC_ALGORITHMS, type IdentitySettings } from '../../src/identity/tokens.js'
import { scope, signedIn, unrestricted } from '../../src/permissions.js'
import { downIssuer, startIssuer } from '../helpers/issuer.js'
import { problemBody, PROBLEM_JSON } from '../helpers/problem.js'

const KEY = 'k1-0123456789abcdefghij'
const AUDIENCE = 'https://gateway.example.com/'
const METADATA = 'https://gateway.example.com/.well-known/oauth-protected-resource'
const CHALLENGE = `Bearer realm="audience-gateway", resource_metadata="${METADATA}"`

const issuer = await startIssuer(AUDIENCE)
t.teardown(issuer.close)
const identityOf = (url: string): IdentitySettings => ({ issuers: [{ issuer: url, algorithms: [...ASYMMETRIC_ALGORITHMS] }], audience: AUDIENCE, clockToleranceSeconds: 0 })
const HINT = `Or sign in with ${issuer.issuer} and send its access token the same way (this resource's OAuth metadata: ${METADATA}).`

async function build (identity: IdentitySettings, lines: string[] = []): Promise<FastifyInstance> {
  const app = Fastify({ logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  await app.register(requestId)
  await app.register(audience)
  await app.register(auth, { keys: [KEY], identity })
  await app.register(problems)
  const whoAmI = async (request: { principal: unknown }) => ({ principal: request.principal ?? null })
  app.get('/books', { config: { permissions: [signedIn] } }, whoAmI)
  app.get('/invoices', { config: { permissions: [scope('invoices:read')] } }, whoAmI)
  app.get('/ledger', { config: { permissions: [scope('ledger:read'), unrestricted] } }, whoAmI)
  app.get('/optional', { config: { keyOptional: true, keyHint: 'Keys come from the operator.' } }, whoAmI)
  t.teardown(() => app.close())
  return app
}

const lines: string[] = []
const app = await build(identityOf(issuer.issuer), lines)
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })
const now = (): number => Math.floor(Date.now() / 1000)

t.test('a valid token passes; its principal carries its scopes and claims', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: bearer(await issuer.sign({ scope: 'invoices:read ledger:read' })) })
  t.equal(res.statusCode, 200)
  t.match(res.json().principal, { keyId: /^[0-9a-f]{12}$/, scopes: ['invoices:read', 'ledger:read'], claims: { iss: issuer.issuer, sub: 'user-1', aud: AUDIENCE } })
})

t.test('keys keep working beside tokens', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: bearer(KEY) })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json().principal.scopes, 'all')
  const wrong = await app.inject({ url: '/books', headers: bearer('k9-not-a-key-0123456789') })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token"`)
  t.equal(problemBody(wrong).detail, `The bearer key is not valid: send one of the configured keys (API_KEYS). ${HINT}`)
})

t.test('no credentials: a 401 whose challenge names the resource metadata, and whose detail says where to sign in', async (t) => {
  const res = await app.inject('/books')
  t.equal(res.statusCode, 401)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.equal(res.headers['www-authenticate'], CHALLENGE)
  t.equal(problemBody(res).detail, `This route needs a key: send "Authorization: Bearer <key>". ${HINT}`)
  const optional = await app.inject({ url: '/optional', headers: { authorization: 'Basic eDp5' } })
  t.equal(problemBody(optional).detail, `The Authorization header is malformed: send "Authorization: Bearer <key>". ${HINT}`, 'the route\'s key hint gives way to the sign-in')
})

t.test('each bad token is a 401 invalid_token saying why', async (t) => {
  const cases: Array<[string, string]> = [
    [await issuer.sign({ exp: now() - 60 }), 'the token has expired'],
    [await issuer.sign({ nbf: now() + 3600 }), 'the token is not yet valid'],
    [await issuer.sign({ iss: 'https://elsewhere.example.com' }), 'the token\'s issuer is not one this gateway trusts'],
    [await issuer.sign({ aud: 'https://other-resource.example.com' }), 'the token is for another resource (its audience is not this gateway)'],
    [await issuer.sign({}, await issuer.unpublished()), 'no key of the token\'s issuer matches its kid'],
    [await issuer.sign({ iat: 'now' as unknown as number }), 'the token\'s "iat" claim does not hold'],
    [await issuer.sign({ sub: undefined }), 'the token names no subject (sub)']
  ]
  for (const [token, reason] of cases) {
    const res = await app.inject({ url: '/books', headers: bearer(token) })
    t.equal(res.statusCode, 401, reason)
    t.equal(res.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token", error_description="${reason.replaceAll('"', '\'')}"`)
    t.equal(problemBody(res).detail, `The bearer token is not valid: ${reason}. ${HINT}`)
  }
})

t.test('a token without the scope a route asks for is a 403 naming it, with an insufficient_scope challenge', async (t) => {
  for (const claims of [{ scope: 'ledger:read' }, { scp: ['other'] }, {}]) {
    const res = await app.inject({ url: '/invoices', headers: bearer(await issuer.sign(claims)) })
    t.equal(res.statusCode, 403, JSON.stringify(claims))
    t.equal(res.headers['www-authenticate'], `${CHALLENGE}, error="insufficient_scope", scope="invoices:read"`)
    t.equal(problemBody(res).detail, 'This token may not call this route: it lacks the scope "invoices:read"; sign in again granting it.')
  }
})

t.test('a route whose key is optional takes a token, refuses a bad one, and asks for credentials: how an OAuth client learns to sign in', async (t) => {
  const res = await app.inject({ url: '/optional', headers: bearer(await issuer.sign()) })
  t.equal(res.json().principal.claims.sub, 'user-1')
  t.equal((await app.inject({ url: '/optional', headers: bearer(KEY) })).json().principal.scopes, 'all')
  const none = await app.inject('/optional')
  t.equal(none.statusCode, 401)
  t.equal(none.headers['www-authenticate'], CHALLENGE)
  t.equal((await app.inject({ url: '/optional', headers: bearer(await issuer.sign({ exp: now() - 60 })) })).statusCode, 401)
})

t.test('every scope a route asks for is gathered as the routes register', async (t) => {
  t.strictSame([...app.routeScopes].sort(), ['invoices:read', 'ledger:read'])
})

t.test('the issuer down: a token is a 503 to retry, a key still passes', async (t) => {
  const down = await downIssuer()
  const logged: string[] = []
  const cut = await build(identityOf(down), logged)
  const token = await issuer.sign({ iss: down })
  const res = await cut.inject({ url: '/books', headers: bearer(token) })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:issuer-unavailable',
    title: 'Issuer unavailable',
    status: 503,
    detail: 'The token\'s issuer could not be reached to check it: retry shortly, or send a key.',
    request_id: res.headers['x-request-id']
  })
  t.equal((await cut.inject({ url: '/books', headers: bearer(KEY) })).statusCode, 200)
  const warning = logged.map((line) => JSON.parse(line) as { msg: string, issuer?: string }).find(({ msg }) => msg === 'token issuer unreachable')
  t.equal(warning?.issuer, down, 'the issuer out of reach is logged')
  t.notOk(logged.join('').includes(token.split('.')[1]), 'the token is not')
})

t.test('no token nor any of its parts appears in the logs', async (t) => {
  const token = await issuer.sign({ scope: 'invoices:read' })
  await app.inject({ url: '/invoices', headers: bearer(token) })
  await app.inject({ url: '/books', headers: bearer(await issuer.sign({ exp: now() - 60 })) })
  const log = lines.join('')
  t.ok(lines.length > 0, 'requests were logged')
  for (const part of token.split('.')) t.notOk(log.includes(part), 'no part of a token')
  t.notOk(log.includes('user-1'), 'no claim')
})
