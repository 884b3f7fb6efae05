// Who is calling, and may they? Bearer keys, compared in constant time, then (when identity
// providers are trusted) bearer tokens from them; then the route's permission checks, the scopes
// among them. Without configured keys one is generated (with every scope) and logged once, never again.
import { hash, randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ApiKey } from '../src/config.js'
import { problem } from '../src/core/errors.js'
import { routeConfig } from './audience.js'
import { IssuerUnreachable, looksLikeToken, tokenVerifier, type IdentitySettings, type TokenVerifier } from '../src/identity/tokens.js'
import { resourceMetadataUrl } from '../src/identity/resource-metadata.js'
import { needsPrincipal, refusalDetail, refusingCheck, scopesOf, type Permission, type Principal } from '../src/permissions.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's key fingerprint, on routes whose checks ask for credentials. */
    principal: Principal | undefined
  }
  interface FastifyInstance {
    /** Every scope a route's checks ask for, gathered as the routes register: the scopes a token may carry. */
    routeScopes: ReadonlySet<string>
    /** True when tokens are taken beside keys: a route needing credentials may then answer that their issuer is out of reach. */
    takesTokens: boolean
    /** The 403 the first of `permissions` refusing `principal` answers (its challenge included), or undefined: for a transport checking per call. */
    permissionRefusal: (permissions: readonly Permission[], principal: Principal) => Error | undefined
  }
  interface FastifyContextConfig {
    /** Every check must allow the caller. Routes without it are left alone here. */
    permissions?: readonly Permission[]
    /**
     * A key is checked if one is sent (a wrong one is a 401), and none is needed: the route itself
     * decides what a caller without one may do (MCP lists and calls the unrestricted tools). While
     * tokens are taken, credentials are needed all the same: a 401 naming the resource metadata
     * is how an OAuth client learns where to sign in.
     */
    keyOptional?: boolean
    /** Said after a 401's detail on this route when only keys are taken: how its clients are to send one (MCP's clients reach for OAuth). */
    keyHint?: string
  }
}

export interface AuthOptions {
  /** The accepted bearer keys (`API_KEYS`), each alone (every scope) or with its scopes. Empty: one is generated for this run and logged. */
  keys: readonly ApiKey[]
  /** The identity providers whose tokens are taken beside the keys; absent: keys only. */
  identity?: IdentitySettings
}

const BEARER = /^\s*bearer +(\S+)\s*$/i

/** How credentials are checked: the keys, the tokens' verifier when there is one, and what a 401 says. */
interface Credentials {
  readonly keys: readonly KnownKey[]
  readonly tokens?: TokenVerifier
  /** The challenge of every 401 and 403: with the resource metadata's URL when tokens are taken. */
  readonly challenge: string
  /** Said after a 401's detail when tokens are taken, instead of a route's key hint. */
  readonly tokenHint?: string
}

async function auth (app: FastifyInstance, options: AuthOptions): Promise<void> {
  const configured = withScopes(options.keys)
  // Tokens alone are a complete configuration: a key is generated only when there is no other way in.
  const generated = configured.length === 0 && options.identity === undefined ? [{ key: generateKey(app), scopes: 'all' as const }] : []
  const credentials = credentialsOf(knownKeys([...configured, ...generated]), options.identity)
  const routeScopes = new Set<string>()

  app.decorateRequest('principal', undefined)
  app.decorate('routeScopes', routeScopes)
  app.decorate('takesTokens', credentials.tokens !== undefined)
  app.decorate('permissionRefusal', (permissions: readonly Permission[], principal: Principal) => refusal(permissions, principal, credentials))
  app.addHook('onRoute', function gatherScopes (route) {
    for (const name of scopesOf(route.config?.permissions ?? [])) routeScopes.add(name)
  })

  // With `done` rather than async: run on every request, spared a promise and a microtask unless a
  // token is to be verified. A refusal reaches the problems plugin all the same.
  app.addHook('onRequest', function authorize (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
    const { permissions, keyOptional, keyHint } = routeConfig(request)
    const wanted = (keyOptional === true && (request.headers.authorization !== undefined || credentials.tokens !== undefined)) || (permissions !== undefined && needsPrincipal(permissions))
    if (!wanted) {
      done(refusal(permissions, undefined, credentials))
      return
    }
    const hint = credentials.tokenHint ?? keyHint
    let found: Principal | Promise<Principal>
    try {
      found = authenticate(request, credentials, hint)
    } catch (error) {
      done(error as Error)
      return
    }
    if (found instanceof Promise) {
      found.then((principal) => { request.principal = principal; done(refusal(permissions, principal, credentials)) }, done)
      return
    }
    request.principal = found
    done(refusal(permissions, found, credentials))
  })
}

export default fp(auth, { name: 'auth', dependencies: ['audience'] })

function generateKey (app: FastifyInstance): string {
  const key = randomBytes(32).toString('base64url')
  app.log.warn({ generatedKey: key }, 'API_KEYS is unset: generated a bearer key for this run; set API_KEYS (comma-separated keys, each optionally key:scope+scope) to choose your own, or OAUTH_ISSUERS to take tokens instead')
  return key
}

/** A configured key, its scopes (every one, for a key alone) and its claims. */
interface ConfiguredKey {
  readonly key: string
  readonly scopes: Principal['scopes']
  readonly claims?: Principal['claims']
}

/** The configured keys, each with its scopes (a key alone carries every scope) and its claims. */
function withScopes (keys: readonly ApiKey[]): ConfiguredKey[] {
  const configured = keys.map((key): ConfiguredKey => typeof key === 'string'
    ? { key, scopes: 'all' }
    : { key: key.key, scopes: key.scopes ?? 'all', ...(key.claims === undefined ? {} : { claims: Object.freeze({ ...key.claims }) }) })
  if (configured.some(({ key }) => !/^\S+$/.test(key))) {
    throw new Error('API_KEYS: every key must be non-empty and free of whitespace.')
  }
  return configured
}

function knownKeys (configured: readonly ConfiguredKey[]): KnownKey[] {
  return configured.map(({ key, ...rest }) => {
    const digest = sha256(key)
    // The caller it names, made once: every request with the key is that same caller.
    return { digest, ...rest, principal: Object.freeze({ keyId: keyIdOf(digest), ...rest }) }
  })
}

/**
 * The caller a key names among the configured keys (`API_KEYS`), or undefined when it is none of
 * them: for a transport with no request to carry one (MCP over stdio, given its key at start).
 */
export function principalOfKey (key: string, keys: readonly ApiKey[]): Principal | undefined {
  const presented = sha256(key)
  const known = matching(knownKeys(withScopes(keys)), presented)
  return known?.principal
}

/** The key whose digest is `presented`, compared with every one without stopping at a match. */
function matching (keys: readonly KnownKey[], presented: string): KnownKey | undefined {
  return keys.reduce<KnownKey | undefined>((found, key) => sameDigest(key.digest, presented) ? key : found, undefined)
}

/**
 * Whether two digests are the same, every character compared whatever the first difference, as
 * `timingSafeEqual` compares Buffers. What is compared is a digest, never a key: a difference's
 * place tells nothing of the key either way.
 */
function sameDigest (a: string, b: string): boolean {
  let difference = a.length ^ b.length
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/** A key's fingerprint, as logs and metrics name its caller: never the key. */
function keyIdOf (digest: string): string {
  return Buffer.from(digest, 'base64').toString('hex').slice(0, 12)
}

/** A configured key as it is kept: its digest, never its text, its scopes and its claims, and the caller it names (its fingerprint, its scopes, its claims). */
interface KnownKey extends Omit<ConfiguredKey, 'key'> {
  readonly digest: string
  readonly principal: Principal
}

/** Keys alone, or keys and tokens: the challenge then names where the resource's metadata is. */
function credentialsOf (keys: readonly KnownKey[], identity: IdentitySettings | undefined): Credentials {
  const realm = 'Bearer realm="audience-gateway"'
  if (identity === undefined) return { keys, challenge: realm }
  const metadata = resourceMetadataUrl(identity.audience)
  const issuers = identity.issuers.map(({ issuer }) => issuer).join(' or ')
  return {
    keys,
    tokens: tokenVerifier(identity),
    challenge: `${realm}, resource_metadata="${metadata}"`,
    tokenHint: `Or sign in with ${issuers} and send its access token the same way (this resource's OAuth metadata: ${metadata}).`
  }
}

/** The 403 of the first check refusing `principal`, or undefined when every check allows it (or there are none). */
function refusal (permissions: readonly Permission[] | undefined, principal: Principal | undefined, { challenge }: Credentials): Error | undefined {
  const refusing = permissions === undefined ? undefined : refusingCheck(permissions, principal)
  if (refusing === undefined) return undefined
  const refused = problem('AG_FORBIDDEN', refusalDetail(refusing, principal, 'route'))
  // RFC 6750's answer to a key without the scope asked for: which scope it needs.
  return refusing.scope === undefined ? refused : withChallenge(refused, `${challenge}, error="insufficient_scope", scope="${refusing.scope}"`)
}

/**
 * The caller behind the request's Authorization: a key, checked against every key without stopping
 * at a match; else, when tokens are taken and it has a token's shape, the token, verified.
 */
function authenticate (request: FastifyRequest, credentials: Credentials, hint: string | undefined): Principal | Promise<Principal> {
  const { authorization } = request.headers
  const { keys, tokens, challenge } = credentials
  const match = BEARER.exec(authorization ?? '')
  if (match === null) {
    throw withChallenge(unauthorized(authorization === undefined
      ? 'This route needs a key: send "Authorization: Bearer <key>".'
      : 'The Authorization header is malformed: send "Authorization: Bearer <key>".', hint), challenge)
  }
  const presented = sha256(match[1])
  const known = matching(keys, presented)
  if (known !== undefined) return known.principal
  if (tokens !== undefined && looksLikeToken(match[1])) return verified(request, tokens(match[1]), credentials, hint)
  throw withChallenge(unauthorized('The bearer key is not valid: send one of the configured keys (API_KEYS).', hint), `${challenge}, error="invalid_token"`)
}

/** A token's caller; a refused token a 401 saying why, an issuer out of reach a 503 (logged, never the token). */
async function verified (request: FastifyRequest, verifying: Promise<Principal>, { challenge }: Credentials, hint: string | undefined): Promise<Principal> {
  try {
    return await verifying
  } catch (error) {
    if (error instanceof IssuerUnreachable) {
      request.log.warn({ issuer: error.issuer, reason: error.message }, 'token issuer unreachable')
      throw problem('AG_ISSUER_UNAVAILABLE', 'The token\'s issuer could not be reached to check it: retry shortly, or send a key.')
    }
    const reason = (error as Error).message
    throw withChallenge(unauthorized(`The bearer token is not valid: ${reason}.`, hint), `${challenge}, error="invalid_token", error_description="${reason.replaceAll('"', "'")}"`)
  }
}

/** A 401, its detail followed by the route's hint when it has one. */
function unauthorized (detail: string, hint: string | undefined): Error {
  return problem('AG_UNAUTHORIZED', hint === undefined ? detail : `${detail} ${hint}`)
}

function withChallenge (error: Error, challenge: string): Error {
  return Object.assign(error, { headers: { 'WWW-Authenticate': challenge } })
}

/**
 * A key's SHA-256, in one call rather than a Hash object per request, in base64: a Buffer of it
 * would be an allocation of its own on every keyed request (about 1 µs in a loop against 0.25, and
 * more under load, with its collection).
 */
function sha256 (text: string): string {
  return hash('sha256', text, 'base64')
}
