// Who is calling, and may they? Bearer keys, compared in constant time, then the route's
// permission checks, a key's scopes among them. Without configured keys one is generated (with
// every scope) and logged once, never again.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ApiKey } from '../src/config.js'
import { problem } from '../src/core/errors.js'
import { routeConfig } from './audience.js'
import { needsPrincipal, refusalReason, refusingCheck, type Permission, type Principal } from '../src/permissions.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's key fingerprint, on routes whose checks ask for credentials. */
    principal: Principal | undefined
  }
  interface FastifyContextConfig {
    /** Every check must allow the caller. Routes without it are left alone here. */
    permissions?: readonly Permission[]
    /**
     * A key is checked if one is sent (a wrong one is a 401), and none is needed: the route itself
     * decides what a caller without one may do (MCP lists and calls the unrestricted tools).
     */
    keyOptional?: boolean
    /** Said after a 401's detail on this route: how its clients are to send a key (MCP's clients reach for OAuth). */
    keyHint?: string
  }
}

export interface AuthOptions {
  /** The accepted bearer keys (`API_KEYS`), each alone (every scope) or with its scopes. Empty: one is generated for this run and logged. */
  keys: readonly ApiKey[]
}

const CHALLENGE = 'Bearer realm="audience-gateway"'
const BEARER = /^\s*bearer +(\S+)\s*$/i

async function auth (app: FastifyInstance, options: AuthOptions): Promise<void> {
  const configured = withScopes(options.keys)
  const keys = knownKeys(configured.length > 0 ? configured : [{ key: generateKey(app), scopes: 'all' as const }])

  app.decorateRequest('principal', undefined)

  // With `done` rather than async: run on every request, spared a promise and a microtask. A refusal
  // is thrown as before, and reaches the problems plugin all the same.
  app.addHook('onRequest', function authorize (request: FastifyRequest, _reply: FastifyReply, done: () => void) {
    const { permissions, keyOptional, keyHint } = routeConfig(request)
    if (keyOptional === true && request.headers.authorization !== undefined) request.principal = authenticate(request.headers.authorization, keys, keyHint)
    if (permissions === undefined) {
      done()
      return
    }
    if (needsPrincipal(permissions)) request.principal = authenticate(request.headers.authorization, keys, keyHint)
    const refusing = refusingCheck(permissions, request.principal)
    if (refusing !== undefined) {
      const refused = problem('AG_FORBIDDEN', `This key may not call this route: ${refusalReason(refusing)}.`)
      // RFC 6750's answer to a key without the scope asked for: which scope it needs.
      throw refusing.scope === undefined ? refused : withChallenge(refused, `${CHALLENGE}, error="insufficient_scope", scope="${refusing.scope}"`)
    }
    done()
  })
}

export default fp(auth, { name: 'auth', dependencies: ['audience'] })

function generateKey (app: FastifyInstance): string {
  const key = randomBytes(32).toString('base64url')
  app.log.warn({ generatedKey: key }, 'API_KEYS is unset: generated a bearer key for this run; set API_KEYS (comma-separated keys, each optionally key:scope+scope) to choose your own')
  return key
}

/** The configured keys, each with its scopes (a key alone carries every scope). */
function withScopes (keys: readonly ApiKey[]): Array<{ key: string, scopes: Principal['scopes'] }> {
  const configured = keys.map((key) => typeof key === 'string' ? { key, scopes: 'all' as const } : key)
  if (configured.some(({ key }) => !/^\S+$/.test(key))) {
    throw new Error('API_KEYS: every key must be non-empty and free of whitespace.')
  }
  return configured
}

function knownKeys (configured: ReadonlyArray<{ key: string, scopes: Principal['scopes'] }>): KnownKey[] {
  return configured.map(({ key, scopes }) => ({ digest: sha256(key), scopes }))
}

/**
 * The caller a key names among the configured keys (`API_KEYS`), or undefined when it is none of
 * them: for a transport with no request to carry one (MCP over stdio, given its key at start).
 */
export function principalOfKey (key: string, keys: readonly ApiKey[]): Principal | undefined {
  const presented = sha256(key)
  const known = matching(knownKeys(withScopes(keys)), presented)
  return known === undefined ? undefined : { keyId: keyIdOf(presented), scopes: known.scopes }
}

/** The key whose digest is `presented`, compared with every one without stopping at a match. */
function matching (keys: readonly KnownKey[], presented: Buffer): KnownKey | undefined {
  return keys.reduce<KnownKey | undefined>((found, key) => timingSafeEqual(key.digest, presented) ? key : found, undefined)
}

/** A key's fingerprint, as logs and metrics name its caller: never the key. */
function keyIdOf (digest: Buffer): string {
  return digest.toString('hex').slice(0, 12)
}

/** A configured key as it is kept: its digest, never its text, and its scopes. */
interface KnownKey {
  readonly digest: Buffer
  readonly scopes: Principal['scopes']
}

/** The caller behind `authorization`, checked against every key without stopping at a match. */
function authenticate (authorization: string | undefined, keys: readonly KnownKey[], hint: string | undefined): Principal {
  const match = BEARER.exec(authorization ?? '')
  if (match === null) {
    throw withChallenge(unauthorized(authorization === undefined
      ? 'This route needs a key: send "Authorization: Bearer <key>".'
      : 'The Authorization header is malformed: send "Authorization: Bearer <key>".', hint), CHALLENGE)
  }
  const presented = sha256(match[1])
  const known = matching(keys, presented)
  if (known === undefined) {
    throw withChallenge(unauthorized('The bearer key is not valid: send one of the configured keys (API_KEYS).', hint), `${CHALLENGE}, error="invalid_token"`)
  }
  return { keyId: keyIdOf(presented), scopes: known.scopes }
}

/** A 401, its detail followed by the route's hint when it has one. */
function unauthorized (detail: string, hint: string | undefined): Error {
  return problem('AG_UNAUTHORIZED', hint === undefined ? detail : `${detail} ${hint}`)
}

function withChallenge (error: Error, challenge: string): Error {
  return Object.assign(error, { headers: { 'WWW-Authenticate': challenge } })
}

/** In one call rather than a Hash object per request. */
function sha256 (text: string): Buffer {
  return hash('sha256', text, 'buffer')
}
