// Bearer keys and permission checks: 401 with a challenge, 403 naming the check or the missing
// scope, keys never logged; a key's claims on its principal; a key generated only when there is no
// other way in.
import { createHash } from 'node:crypto'
import t from 'tap'
import requestId from '../../plugins/request-id.js'
import Fastify, { type FastifyInstance } from 'fastify'
import audience from '../../plugins/audience.js'
import auth, { principalOfKey } from '../../plugins/auth.js'
import problems from '../../plugins/problems.js'
import { JSON_VARIANTS } from '../../src/audience.js'
import type { ApiKey } from '../../src/config.js'
import { ASYMMETRIC_ALGORITHMS, type IdentitySettings } from '../../src/identity/tokens.js'
import { scope, signedIn, unrestricted, type Permission } from '../../src/permissions.js'
import { problemBody, PROBLEM_JSON } from '../helpers/problem.js'

const CHALLENGE = 'Bearer realm="audience-gateway"'
const KEY = 'k1-0123456789abcdefghij'
const OTHER_KEY = 'k2-zyxwvutsrqponmlkjihg'
const READER_KEY = 'k3-reader-0123456789abc'
const NO_SCOPE_KEY = 'k4-nothing-0123456789ab'
const CLAIMS_KEY = 'k5-tenant-0123456789abc'
const CLAIMS = { org_id: 'acme', level: 3, admin: false }

const editors: Permission = { name: 'editors', needsPrincipal: true, allows: () => false }
const closed: Permission = { name: 'closed', needsPrincipal: false, allows: () => false }

interface LogLine { level: number, msg: string, generatedKey?: string }

/** An app with the three plugins and a route per kind of check, logging everything into `lines`. */
async function build (keys: readonly ApiKey[], lines: string[] = [], identity?: IdentitySettings): Promise<FastifyInstance> {
  const app = Fastify({ logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  await app.register(requestId)
  await app.register(audience)
  await app.register(auth, { keys, ...(identity === undefined ? {} : { identity }) })
  await app.register(problems)
  const whoAmI = async (request: { principal: unknown, audience: string }) => ({ principal: request.principal ?? null, audience: request.audience })
  app.get('/books', { config: { variants: JSON_VARIANTS, permissions: [signedIn] } }, whoAmI)
  app.get('/ledger', { config: { permissions: [unrestricted] } }, whoAmI)
  app.get('/drafts', { config: { permissions: [signedIn, editors] } }, whoAmI)
  app.get('/closed', { config: { permissions: [unrestricted, closed] } }, whoAmI)
  app.get('/invoices', { config: { permissions: [scope('invoices:read')] } }, whoAmI)
  app.get('/payments', { config: { permissions: [scope('invoices:read'), scope('payments:write')] } }, whoAmI)
  app.get('/healthz', whoAmI)
  app.get('/hinted', { config: { permissions: [signedIn], keyHint: 'Keys come from the operator.' } }, whoAmI)
  // What JSON cannot say of the principal: whether it has claims at all, and whether they are frozen.
  app.get('/claims', { config: { permissions: [signedIn] } }, async (request) => {
    const claims = request.principal?.claims
    return { hasClaims: request.principal !== undefined && 'claims' in request.principal, frozen: claims === undefined ? null : Object.isFrozen(claims) }
  })
  return app
}

const lines: string[] = []
const KEYS: readonly ApiKey[] = [KEY, OTHER_KEY, { key: READER_KEY, scopes: ['invoices:read', 'ledger:read'] }, { key: NO_SCOPE_KEY, scopes: ['other'] }, { key: CLAIMS_KEY, scopes: ['invoices:read'], claims: CLAIMS }]
const app = await build(KEYS, lines)
t.teardown(() => app.close())

t.test('no key is a 401 with a Bearer challenge', async (t) => {
  const res = await app.inject('/books')
  t.equal(res.statusCode, 401)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.equal(res.headers['www-authenticate'], CHALLENGE)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:unauthorized',
    title: 'Unauthorized',
    status: 401,
    detail: 'This route needs a key: send "Authorization: Bearer <key>".',
    request_id: res.headers['x-request-id']
  })
})

t.test('a malformed Authorization header is a 401 with a Bearer challenge', async (t) => {
  for (const authorization of [`Basic ${KEY}`, 'Bearer', `Bearer ${KEY} extra`, KEY]) {
    const res = await app.inject({ url: '/books', headers: { authorization } })
    t.equal(res.statusCode, 401, authorization)
    t.equal(res.headers['www-authenticate'], CHALLENGE)
    t.equal(problemBody(res).detail, 'The Authorization header is malformed: send "Authorization: Bearer <key>".')
  }
})

t.test('a wrong key is a 401 invalid_token', async (t) => {
  const res = await app.inject({ url: '/books', headers: { authorization: 'Bearer not-a-key' } })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.equal(res.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token"`)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:unauthorized',
    title: 'Unauthorized',
    status: 401,
    detail: 'The bearer key is not valid: send one of the configured keys (API_KEYS).',
    request_id: res.headers['x-request-id']
  })
})

t.test('a route\'s key hint follows every 401 it answers, and nothing else', async (t) => {
  const none = await app.inject('/hinted')
  t.equal(none.json().detail, 'This route needs a key: send "Authorization: Bearer <key>". Keys come from the operator.')
  const wrong = await app.inject({ url: '/hinted', headers: { authorization: `Bearer ${KEY}x` } })
  t.equal(wrong.json().detail, 'The bearer key is not valid: send one of the configured keys (API_KEYS). Keys come from the operator.')
  t.equal(wrong.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token"`, 'the challenge as on any route')
  t.equal((await app.inject({ url: '/hinted', headers: { authorization: `Bearer ${KEY}` } })).statusCode, 200)
})

t.test('a prefix of a key is not the key', async (t) => {
  const res = await app.inject({ url: '/books', headers: { authorization: `Bearer ${KEY.slice(0, -1)}` } })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token"`)
})

t.test('the right key passes, with a key id that is not the key', async (t) => {
  const res = await app.inject({ url: '/books', headers: { authorization: `Bearer ${KEY}` } })
  t.equal(res.statusCode, 200)
  const { principal } = res.json()
  t.match(principal.keyId, /^[0-9a-f]{12}$/)
  // The fingerprint logs, metrics and limits name the caller by: the key's SHA-256 in hex, cut, whatever form the digest is kept in.
  t.equal(principal.keyId, createHash('sha256').update(KEY).digest('hex').slice(0, 12))
  t.not(principal.keyId, KEY)
  t.notOk(KEY.includes(principal.keyId))
})

t.test('the scheme is case-insensitive', async (t) => {
  const res = await app.inject({ url: '/books', headers: { authorization: `bEaReR ${KEY}` } })
  t.equal(res.statusCode, 200)
})

t.test('audience resolution still runs before authentication', async (t) => {
  const res = await app.inject({ url: '/books', headers: { authorization: `Bearer ${KEY}`, 'x-audience': 'agent' } })
  t.equal(res.json().audience, 'agent')
  const refused = await app.inject({ url: '/books', headers: { 'x-audience': 'robot' } })
  t.equal(refused.statusCode, 400, 'the audience is refused before the missing key')
})

t.test('every configured key passes, each with its own key id', async (t) => {
  const first = await app.inject({ url: '/books', headers: { authorization: `Bearer ${KEY}` } })
  const second = await app.inject({ url: '/books', headers: { authorization: `Bearer ${OTHER_KEY}` } })
  t.equal(first.statusCode, 200)
  t.equal(second.statusCode, 200)
  t.not(first.json().principal.keyId, second.json().principal.keyId)
})

t.test('an unrestricted route needs no key', async (t) => {
  const res = await app.inject('/ledger')
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), { principal: null, audience: 'plain' })
})

t.test('a route without permissions is left alone', async (t) => {
  const res = await app.inject({ url: '/healthz', headers: { authorization: 'Bearer not-a-key' } })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), { principal: null, audience: 'plain' })
})

t.test('an unknown path is a 404, not a 401, and is not negotiated', async (t) => {
  const res = await app.inject({ url: '/nowhere', headers: { accept: 'text/csv' } })
  t.equal(res.statusCode, 404)
  t.equal(res.headers['www-authenticate'], undefined)
  t.equal(res.headers.vary, undefined)
  t.equal(problemBody(res).detail, 'No route serves this method and path. The routes are listed at /openapi.json.')
})

t.test('a failing check is a 403 naming it', async (t) => {
  const res = await app.inject({ url: '/drafts', headers: { authorization: `Bearer ${KEY}` } })
  t.equal(res.statusCode, 403)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.equal(res.headers['www-authenticate'], undefined)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:forbidden',
    title: 'Forbidden',
    status: 403,
    detail: 'This key may not call this route: the "editors" check refuses it.',
    request_id: res.headers['x-request-id']
  })
})

t.test('a check needing no key can still refuse', async (t) => {
  const res = await app.inject('/closed')
  t.equal(res.statusCode, 403)
  t.equal(problemBody(res).detail, 'This caller may not call this route: the "closed" check refuses it.')
})

t.test('a key carrying the scope a route asks for passes, and its principal says its scopes', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: { authorization: `Bearer ${READER_KEY}` } })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json().principal.scopes, ['invoices:read', 'ledger:read'])
  t.notOk(JSON.stringify(res.json()).includes(READER_KEY), 'the principal holds no key')
})

t.test('a key configured with claims passes; its principal carries exactly those claims, frozen, and never the key', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: { authorization: `Bearer ${CLAIMS_KEY}` } })
  t.equal(res.statusCode, 200)
  const { principal } = res.json()
  t.strictSame(principal, { keyId: principal.keyId, scopes: ['invoices:read'], claims: CLAIMS })
  t.match(principal.keyId, /^[0-9a-f]{12}$/)
  t.notOk(res.body.includes(CLAIMS_KEY), 'the answer holds no key')
  const claims = await app.inject({ url: '/claims', headers: { authorization: `Bearer ${CLAIMS_KEY}` } })
  t.strictSame(claims.json(), { hasClaims: true, frozen: true }, 'what reads the claims cannot change them')
})

t.test('a key configured without claims has no claims on its principal', async (t) => {
  for (const key of [KEY, READER_KEY]) {
    const res = await app.inject({ url: '/claims', headers: { authorization: `Bearer ${key}` } })
    t.equal(res.statusCode, 200)
    t.strictSame(res.json(), { hasClaims: false, frozen: null }, key === KEY ? 'a key alone' : 'a key with scopes')
  }
})

t.test('principalOfKey (MCP over stdio) names the same caller a request does, its claims included', async (t) => {
  const overHttp = (await app.inject({ url: '/books', headers: { authorization: `Bearer ${CLAIMS_KEY}` } })).json().principal
  const principal = principalOfKey(CLAIMS_KEY, KEYS)
  t.strictSame(principal, { keyId: overHttp.keyId, scopes: ['invoices:read'], claims: CLAIMS })
  t.ok(Object.isFrozen(principal?.claims), 'its claims frozen')
  t.notOk(Object.isFrozen(CLAIMS), 'a copy is frozen, not the configuration\'s object')
  const alone = principalOfKey(KEY, KEYS)
  t.strictSame(alone, { keyId: alone?.keyId, scopes: 'all' })
  t.notOk(alone !== undefined && 'claims' in alone, 'a key without claims: none')
  t.equal(principalOfKey(`${CLAIMS_KEY}x`, KEYS), undefined, 'a key not configured names no one')
})

t.test('a key configured without scopes carries every scope', async (t) => {
  for (const url of ['/invoices', '/payments']) {
    const res = await app.inject({ url, headers: { authorization: `Bearer ${KEY}` } })
    t.equal(res.statusCode, 200, url)
    t.equal(res.json().principal.scopes, 'all')
  }
})

t.test('a key without the scope is a 403 naming the scope, with an insufficient_scope challenge', async (t) => {
  const res = await app.inject({ url: '/invoices', headers: { authorization: `Bearer ${NO_SCOPE_KEY}` } })
  t.equal(res.statusCode, 403)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.equal(res.headers['www-authenticate'], `${CHALLENGE}, error="insufficient_scope", scope="invoices:read"`)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:forbidden',
    title: 'Forbidden',
    status: 403,
    detail: 'This key may not call this route: it lacks the scope "invoices:read"; use a key that carries it.',
    request_id: res.headers['x-request-id']
  })
})

t.test('every scope a route asks for is needed: the first one missing is named', async (t) => {
  const res = await app.inject({ url: '/payments', headers: { authorization: `Bearer ${READER_KEY}` } })
  t.equal(res.statusCode, 403)
  t.equal(res.headers['www-authenticate'], `${CHALLENGE}, error="insufficient_scope", scope="payments:write"`)
  t.match(problemBody(res).detail, /lacks the scope "payments:write"/)
})

t.test('a scoped route still asks for a key first', async (t) => {
  const res = await app.inject('/invoices')
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], CHALLENGE)
})

t.test('no key, claim nor Authorization value appears in the logs', async (t) => {
  for (const authorization of [`Bearer ${KEY}`, `Bearer ${OTHER_KEY}`, `Bearer ${READER_KEY}`, `Bearer ${NO_SCOPE_KEY}`, `Bearer ${CLAIMS_KEY}`, 'Bearer wrong-key-42', `Basic ${KEY}`]) {
    await app.inject({ url: '/books', headers: { authorization } })
    await app.inject({ url: '/drafts', headers: { authorization } })
    await app.inject({ url: '/payments', headers: { authorization } })
  }
  const log = lines.join('')
  t.ok(lines.length > 0, 'requests were logged')
  t.notOk(log.includes(KEY))
  t.notOk(log.includes(OTHER_KEY))
  t.notOk(log.includes(READER_KEY))
  t.notOk(log.includes(NO_SCOPE_KEY))
  t.notOk(log.includes(CLAIMS_KEY))
  t.notOk(log.includes('acme'), 'nor a key\'s claims')
  t.notOk(log.includes('wrong-key-42'))
  t.notMatch(log, /authorization/i)
})

t.test('without keys, one is generated, logged once, and usable', async (t) => {
  const generatedLines: string[] = []
  const generated = await build([], generatedLines)
  t.teardown(() => generated.close())
  const warnings = generatedLines.map((line) => JSON.parse(line) as LogLine).filter((line) => line.generatedKey !== undefined)
  t.equal(warnings.length, 1)
  t.equal(warnings[0].level, 40, 'a warning')
  t.match(warnings[0].msg, /API_KEYS.*comma-separated/)
  const key = warnings[0].generatedKey as string
  t.match(key, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url')

  const res = await generated.inject({ url: '/books', headers: { authorization: `Bearer ${key}` } })
  t.equal(res.statusCode, 200)
  t.equal(generatedLines.filter((line) => line.includes(key)).length, 1, 'the key is in the one generation line only')
})

t.test('with identity providers and no keys, no key is generated: tokens are the way in', async (t) => {
  const logged: string[] = []
  const identity: IdentitySettings = { issuers: [{ issuer: 'https://issuer.example.com', algorithms: [...ASYMMETRIC_ALGORITHMS] }], audience: 'https://gateway.example.com', clockToleranceSeconds: 0 }
  const tokensOnly = await build([], logged, identity)
  t.teardown(() => tokensOnly.close())
  const res = await tokensOnly.inject('/books')
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], `${CHALLENGE}, resource_metadata="https://gateway.example.com/.well-known/oauth-protected-resource"`)
  t.match(problemBody(res).detail, /^This route needs a key: send "Authorization: Bearer <key>"\. Or sign in with https:\/\/issuer\.example\.com /)
  t.equal((await tokensOnly.inject({ url: '/books', headers: { authorization: `Bearer ${KEY}` } })).statusCode, 401, 'no key is taken')
  t.ok(logged.length > 0, 'the app\'s lines were captured')
  const parsed = logged.map((line) => JSON.parse(line) as LogLine)
  t.strictSame(parsed.filter((line) => line.generatedKey !== undefined), [], 'no generatedKey line')
  t.notOk(parsed.some((line) => /API_KEYS is unset/.test(line.msg)), 'no warning about API_KEYS')
})

t.test('two apps without keys generate different keys', async (t) => {
  const first: string[] = []
  const second: string[] = []
  const apps = [await build([], first), await build([], second)]
  t.teardown(() => Promise.all(apps.map((each) => each.close())))
  const keyOf = (logged: string[]) => logged.map((line) => JSON.parse(line) as LogLine).find((line) => line.generatedKey !== undefined)?.generatedKey
  t.not(keyOf(first), keyOf(second))
})

t.test('a key that cannot be sent is refused at registration', async (t) => {
  for (const keys of [[''], ['two words'], [{ key: 'two words', scopes: ['a'] }]]) {
    const bad = Fastify()
    await bad.register(audience)
    bad.register(auth, { keys })
    await t.rejects(async () => { await bad.ready() }, /API_KEYS: every key must be non-empty and free of whitespace\./)
  }
})

t.test('auth refuses to register without the audience plugin', async (t) => {
  const bad = Fastify()
  bad.register(auth, { keys: [KEY] })
  await t.rejects(async () => { await bad.ready() }, /audience/)
})
