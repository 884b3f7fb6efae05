// Bearer tokens from the identity providers this gateway trusts: a JWT is accepted when it is signed
// by a key of its issuer's JWKS with an allowed algorithm, and its issuer, audience and validity hold.
// The JWKS is found by OpenID Connect discovery (or given), fetched at first use and cached by jose,
// which fetches it again when a token names a kid it does not hold (at most once per cooldown).
import { hash } from 'node:crypto'
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose'
import type { Principal } from '../permissions.js'

/** An identity provider whose tokens are accepted. */
export interface TrustedIssuer {
  /** Its issuer identifier, as its tokens' `iss` says it, exactly. */
  readonly issuer: string
  /** Where its signing keys are published; absent, found at `<issuer>/.well-known/openid-configuration`. */
  readonly jwksUri?: string
  /** The signing algorithms accepted from it: asymmetric ones only. */
  readonly algorithms: readonly string[]
}

/** What tokens are checked against (`OAUTH_ISSUERS`, `OAUTH_AUDIENCE`, `OAUTH_CLOCK_TOLERANCE_SECONDS`). */
export interface IdentitySettings {
  readonly issuers: readonly TrustedIssuer[]
  /** This gateway's own resource URL: a token's `aud` must name it. */
  readonly audience: string
  /** Seconds of leeway on `exp` and `nbf`, for clocks that disagree. */
  readonly clockToleranceSeconds: number
}

/** The algorithms accepted when an issuer names none: every asymmetric one jose verifies. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const

/** A token refused: its message says why in words safe to send back (never the token). */
export class TokenRefused extends Error {
  override name = 'TokenRefused'
}

/** The token's issuer, or its keys, could not be reached: the token is neither accepted nor refused. */
export class IssuerUnreachable extends Error {
  override name = 'IssuerUnreachable'
  constructor (readonly issuer: string, cause: unknown) {
    super(`The issuer ${issuer} could not be reached: ${(cause as Error).message}`, { cause })
  }
}

/** Checks a token; resolves to its caller, or rejects with a TokenRefused or an IssuerUnreachable. */
export type TokenVerifier = (token: string) => Promise<Principal>

/**
 * A verifier for `settings`, keeping each issuer's keys once found. An unknown kid fetches the keys
 * again at most once per `cooldownMs` (a token naming keys that do not exist cannot flood the issuer).
 */
export function tokenVerifier (settings: IdentitySettings, cooldownMs = COOLDOWN_MS): TokenVerifier {
  const keySets = new Map<string, Promise<KeySet>>()
  return async function verify (token) {
    const issuer = issuerOf(token, settings.issuers)
    const keys = await keySetOf(issuer, keySets, cooldownMs)
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: issuer.issuer,
        audience: settings.audience,
        algorithms: [...issuer.algorithms],
        clockTolerance: settings.clockToleranceSeconds,
        // A subject, as RFC 9068 asks of an access token: the caller is counted (rate limits) by it.
        requiredClaims: ['exp', 'sub']
      })
      return principalOf(payload)
    } catch (error) {
      throw refusalOf(error, issuer.issuer)
    }
  }
}

/** True for a JWS in compact form (three base64url segments): what is checked as a token rather than as a key. */
export function looksLikeToken (text: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(text)
}

/** The caller a verified token names: its scopes (`scope`, space-separated, or `scp`), and every claim. */
export function principalOf (claims: JWTPayload): Principal {
  const { scope, scp } = claims as { scope?: unknown, scp?: unknown }
  const listed = typeof scope === 'string' ? scope : Array.isArray(scp) ? scp.filter((item) => typeof item === 'string').join(' ') : typeof scp === 'string' ? scp : ''
  return {
    keyId: hash('sha256', `${claims.iss ?? ''}\n${claims.sub ?? ''}`, 'hex').slice(0, 12),
    scopes: listed.split(' ').filter((name) => name !== ''),
    claims: Object.freeze({ ...claims }),
    ...(typeof claims.iss === 'string' ? { issuer: claims.iss } : {})
  }
}

type KeySet = ReturnType<typeof createRemoteJWKSet>

/** Why jose refused a token, in words a client may read; anything else is its issuer out of reach. */
const REFUSALS: Readonly<Record<string, string>> = {
  ERR_JWT_EXPIRED: 'the token has expired',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the token is signed with an algorithm this gateway does not accept',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the token\'s signature does not verify',
  ERR_JWKS_NO_MATCHING_KEY: 'no key of the token\'s issuer matches its kid',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'the token names no kid and its issuer has several keys',
  ERR_JWS_INVALID: 'the token is malformed',
  ERR_JWT_INVALID: 'the token is malformed',
  ERR_JOSE_NOT_SUPPORTED: 'the token asks for what this gateway does not support (an algorithm or a critical header)'
}

/** Claims whose failure is said in words of their own; any other names the claim. */
const CLAIM_REFUSALS: Readonly<Record<string, string>> = {
  aud: 'the token is for another resource (its audience is not this gateway)',
  nbf: 'the token is not yet valid',
  exp: 'the token has no expiry',
  sub: 'the token names no subject (sub)'
}

function refusalOf (error: unknown, issuer: string): Error {
  const { code, claim } = error as { code?: string, claim?: string }
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return new TokenRefused(CLAIM_REFUSALS[claim as string] ?? `the token's "${claim}" claim does not hold`)
  const reason = REFUSALS[code as string]
  return reason === undefined ? new IssuerUnreachable(issuer, error) : new TokenRefused(reason)
}

/** The configured issuer a token names (read before it is verified, only to choose whose keys verify it). */
function issuerOf (token: string, issuers: readonly TrustedIssuer[]): TrustedIssuer {
  let claims: JWTPayload
  try {
    claims = decodeJwt(token)
  } catch {
    throw new TokenRefused('the token is malformed')
  }
  const issuer = issuers.find((candidate) => candidate.issuer === claims.iss)
  if (issuer === undefined) throw new TokenRefused('the token\'s issuer is not one this gateway trusts')
  return issuer
}

/** The issuer's keys, found once; a failed discovery is forgotten, so the next token tries again. */
async function keySetOf (issuer: TrustedIssuer, keySets: Map<string, Promise<KeySet>>, cooldownMs: number): Promise<KeySet> {
  let found = keySets.get(issuer.issuer)
  if (found === undefined) {
    found = jwksUriOf(issuer).then((uri) => createRemoteJWKSet(new URL(uri), { timeoutDuration: TIMEOUT_MS, cooldownDuration: cooldownMs }))
    keySets.set(issuer.issuer, found)
    found.catch(() => { keySets.delete(issuer.issuer) })
  }
  return await found
}

/** How long the issuer has to answer, and how soon an unknown kid may fetch its keys again. */
const TIMEOUT_MS = 5000
const COOLDOWN_MS = 30_000

/** The issuer's `jwks_uri`, from its OpenID Connect configuration unless given. */
async function jwksUriOf (issuer: TrustedIssuer): Promise<string> {
  if (issuer.jwksUri !== undefined) return issuer.jwksUri
  const url = `${issuer.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } })
    if (!response.ok) throw new Error(`${url} answered ${response.status}`)
    const { issuer: named, jwks_uri: uri } = await response.json() as { issuer?: unknown, jwks_uri?: unknown }
    if (named !== issuer.issuer) throw new Error(`${url} names the issuer ${JSON.stringify(named)}, not this one`)
    if (typeof uri !== 'string' || !URL.canParse(uri)) throw new Error(`${url} names no jwks_uri`)
    return uri
  } catch (error) {
    throw new IssuerUnreachable(issuer.issuer, error)
  }
}
