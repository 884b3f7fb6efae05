// Tokens from a local issuer (keys generated here, its discovery document and key set on
// 127.0.0.1): what is accepted, each way a token is refused and why, the key set found, cached,
// fetched again for a new kid (at most once per cooldown), and an issuer out of reach.
import { createHmac } from 'node:crypto'
import { SignJWT } from 'jose'
import t, { type Test } from 'tap'
import { IssuerUnreachable, looksLikeToken, principalOf, tokenVerifier, TokenRefused, ASYMMETRIC_ALGORITHMS, type IdentitySettings } from '../../../src/identity/tokens.js'
import { downIssuer, forged, startIssuer } from '../../helpers/issuer.js'

const AUDIENCE = 'https://gateway.example.com'
const issuer = await startIssuer(AUDIENCE)
t.teardown(issuer.close)

const settings: IdentitySettings = { issuers: [{ issuer: issuer.issuer, algorithms: [...ASYMMETRIC_ALGORITHMS] }], audience: AUDIENCE, clockToleranceSeconds: 30 }
const verify = tokenVerifier(settings)
const now = (): number => Math.floor(Date.now() / 1000)

async function refusal (t: Test, token: string, reason: string, verifier = verify): Promise<void> {
  const error = await verifier(token).then(() => undefined, (error: unknown) => error)
  t.ok(error instanceof TokenRefused, `refused: ${reason}`)
  t.equal((error as Error).message, reason)
}

t.test('a valid token is its caller: its scopes, its claims, a fingerprint of its issuer and subject', async (t) => {
  const principal = await verify(await issuer.sign({ scope: 'invoices:read  ledger:read' }))
  t.strictSame(principal.scopes, ['invoices:read', 'ledger:read'])
  t.match(principal.keyId, /^[0-9a-f]{12}$/)
  t.equal(principal.claims?.sub, 'user-1')
  t.ok(Object.isFrozen(principal.claims), 'its claims cannot be changed by what reads them')
  t.equal((await verify(await issuer.sign({ scope: 'other' }))).keyId, principal.keyId, 'the same subject, the same fingerprint')
  t.not((await verify(await issuer.sign({ sub: 'user-2' }))).keyId, principal.keyId, 'another subject, another fingerprint')
  t.equal(issuer.served.get('/.well-known/openid-configuration'), 1, 'discovery once')
  t.equal(issuer.served.get('/jwks'), 1, 'the key set fetched once, then cached')
})

t.test('scopes come from `scope` (space-separated) or `scp` (a list or a string); none is no scope', async (t) => {
  t.strictSame(principalOf({ scp: ['a', 'b', 3] }).scopes, ['a', 'b'])
  t.strictSame(principalOf({ scp: 'a b' }).scopes, ['a', 'b'])
  t.strictSame(principalOf({ scope: 'a', scp: ['b'] }).scopes, ['a'], '`scope` first')
  t.strictSame(principalOf({}).scopes, [])
  t.equal(principalOf({}).keyId, principalOf({ iss: '', sub: '' }).keyId, 'no issuer and no subject: one fingerprint')
})

t.test('validity: expired, not yet valid, within the clock tolerance, no expiry', async (t) => {
  await refusal(t, await issuer.sign({ exp: now() - 60 }), 'the token has expired')
  await refusal(t, await issuer.sign({ nbf: now() + 3600 }), 'the token is not yet valid')
  t.ok(await verify(await issuer.sign({ exp: now() - 10, nbf: now() + 10 })), 'ten seconds either way is within 30 s of tolerance')
  await refusal(t, await issuer.sign({ exp: undefined }), 'the token has no expiry')
})

t.test('issuer and audience: a token of another issuer, or for another resource, is refused', async (t) => {
  await refusal(t, await issuer.sign({ iss: 'https://elsewhere.example.com' }), 'the token\'s issuer is not one this gateway trusts')
  await refusal(t, await issuer.sign({ aud: 'https://other-resource.example.com' }), 'the token is for another resource (its audience is not this gateway)')
  t.ok(await verify(await issuer.sign({ aud: ['https://other-resource.example.com', AUDIENCE] })), 'an audience among several')
  await refusal(t, await issuer.sign({ iat: 'yesterday' as unknown as number }), 'the token\'s "iat" claim does not hold')
})

t.test('forgeries: alg none, HS256 keyed with the public key, a tampered payload, a malformed token', async (t) => {
  const payload = { iss: issuer.issuer, aud: AUDIENCE, sub: 'user-1', exp: now() + 300 }
  const kid = issuer.currentJwk().kid
  await refusal(t, forged({ alg: 'none', kid }, payload), 'the token is signed with an algorithm this gateway does not accept')
  // The classic confusion: the issuer's public key, known to all, used as an HMAC secret.
  const unsigned = forged({ alg: 'HS256', kid }, payload).slice(0, -1)
  const mac = createHmac('sha256', JSON.stringify(issuer.currentJwk())).update(unsigned).digest('base64url')
  await refusal(t, `${unsigned}.${mac}`, 'the token is signed with an algorithm this gateway does not accept')
  const [header, , signature] = (await issuer.sign({ scope: 'reader' })).split('.')
  const tampered = `${header}.${Buffer.from(JSON.stringify({ ...payload, scope: 'admin' })).toString('base64url')}.${signature}`
  await refusal(t, tampered, 'the token\'s signature does not verify')
  await refusal(t, 'not.a.token', 'the token is malformed')
  await refusal(t, forged({ alg: 'RS256', kid }, payload, '!!'), 'the token is malformed')
  await refusal(t, forged({ alg: 'RS256', kid, crit: ['unknown'] }, payload, 'c2ln'), 'the token asks for what this gateway does not support (an algorithm or a critical header)')
  const restricted = tokenVerifier({ ...settings, issuers: [{ issuer: issuer.issuer, algorithms: ['ES256'] }] })
  await refusal(t, await issuer.sign(), 'the token is signed with an algorithm this gateway does not accept', restricted)
})

t.test('an unknown kid fetches the key set again, at most once per cooldown; a rotated key is then found', async (t) => {
  const fresh = tokenVerifier(settings, 0)
  await fresh(await issuer.sign())
  const fetched = issuer.served.get('/jwks') ?? 0
  const rotated = await issuer.rotate()
  t.ok(await fresh(await issuer.sign({}, rotated)), 'a token of the new key is accepted')
  t.equal(issuer.served.get('/jwks'), fetched + 1, 'found by fetching the key set again')
  await refusal(t, await issuer.sign({}, await issuer.unpublished()), 'no key of the token\'s issuer matches its kid', fresh)

  const cooling = tokenVerifier(settings)
  await cooling(await issuer.sign())
  const before = issuer.served.get('/jwks') ?? 0
  await refusal(t, await issuer.sign({}, await issuer.unpublished()), 'no key of the token\'s issuer matches its kid', cooling)
  await refusal(t, await issuer.sign({}, await issuer.unpublished()), 'no key of the token\'s issuer matches its kid', cooling)
  t.equal(issuer.served.get('/jwks'), before, 'within the cooldown of the last fetch, an unknown kid fetches nothing')
})

t.test('two keys and a token naming no kid: refused, not guessed', async (t) => {
  const key = await issuer.rotate()
  const token = await new SignJWT({ iss: issuer.issuer, aud: AUDIENCE, exp: now() + 300 }).setProtectedHeader({ alg: 'RS256' }).sign(key.privateKey)
  await refusal(t, token, 'the token names no kid and its issuer has several keys', tokenVerifier(settings))
})

t.test('a key set given is fetched without discovery', async (t) => {
  const given = tokenVerifier({ ...settings, issuers: [{ issuer: issuer.issuer, jwksUri: `${issuer.issuer}/jwks`, algorithms: ['RS256'] }] })
  const discovered = issuer.served.get('/.well-known/openid-configuration')
  t.ok(await given(await issuer.sign()))
  t.equal(issuer.served.get('/.well-known/openid-configuration'), discovered)
})

t.test('an issuer out of reach: neither accepted nor refused, and asked again by the next token', async (t) => {
  const down = await downIssuer()
  const unreachable = tokenVerifier({ ...settings, issuers: [{ issuer: down, algorithms: ['RS256'] }] })
  const error = await unreachable(forged({ alg: 'RS256' }, { iss: down }, 'c2ln')).catch((error: unknown) => error)
  t.ok(error instanceof IssuerUnreachable)
  t.equal((error as IssuerUnreachable).issuer, down)
  t.match((error as Error).message, `The issuer ${down} could not be reached: `)

  const cases: Array<[string, { status: number, body: unknown }, RegExp]> = [
    ['/.well-known/openid-configuration', { status: 500, body: {} }, /answered 500/],
    ['/.well-known/openid-configuration', { status: 200, body: { issuer: 'https://impostor.example.com', jwks_uri: `${issuer.issuer}/jwks` } }, /names the issuer "https:\/\/impostor.example.com", not this one/],
    ['/.well-known/openid-configuration', { status: 200, body: { issuer: issuer.issuer } }, /names no jwks_uri/],
    ['/jwks', { status: 500, body: {} }, /Expected 200 OK/]
  ]
  for (const [path, answer, reason] of cases) {
    issuer.answers.set(path, answer)
    const failing = tokenVerifier(settings)
    const failed = await failing(await issuer.sign()).catch((error: unknown) => error)
    t.ok(failed instanceof IssuerUnreachable, `${path} ${answer.status}`)
    t.match((failed as Error).message, reason)
    issuer.answers.delete(path)
    t.ok(await failing(await issuer.sign()), 'the next token finds the issuer again')
  }
})

t.test('a token is told from a key by its shape', async (t) => {
  t.ok(looksLikeToken('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'))
  t.ok(looksLikeToken('a.b.'), 'an empty signature still has a token\'s shape')
  t.notOk(looksLikeToken('test-key-0123456789abcdef'))
  t.notOk(looksLikeToken('a.b'))
  t.notOk(looksLikeToken('a.b.c.d'))
})
