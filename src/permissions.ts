// Who may call a route. Every mounted route declares its checks; an open route says so. A key may
// carry scopes, and a check may ask for one: the check is data (its scope), so a declaration file
// can name it and the document can publish it.

/**
 * Who made the request: a public fingerprint (of a key, or of a token's issuer and subject) and what
 * it may do, never the key or the token itself.
 */
export interface Principal {
  readonly keyId: string
  /** The key's or the token's scopes; `all` for a key configured without a list (every scope). */
  readonly scopes: 'all' | readonly string[]
  /**
   * What the caller's identity says of it, for the rules that read it (a mount's row rule): a token's
   * verified claims, or the claims configured with a key; never logged. Absent for a key without any.
   */
  readonly claims?: Readonly<Record<string, unknown>>
  /** The issuer of a token; absent for a key. */
  readonly issuer?: string
}

export interface Permission {
  /** Named in a 403 and in the OpenAPI document. */
  readonly name: string
  /** False only for `unrestricted`: then no credentials are asked for. */
  readonly needsPrincipal: boolean
  readonly allows: (principal: Principal | undefined) => boolean
  /** The scope a key must carry, for a check built by `scope()`: published with the bearer scheme. */
  readonly scope?: string
}

/** What a scope may be written with: letters, digits and `_ . : / -` (no `+`, `,` or space, which separate). */
export const SCOPE_PATTERN = /^[\w.:/-]+$/

/** Anyone, with or without a key: the explicit way to open a route. */
export const unrestricted: Permission = Object.freeze({ name: 'unrestricted', needsPrincipal: false, allows: () => true })

/** Any caller presenting a valid key. */
export const signedIn: Permission = Object.freeze({
  name: 'signed-in',
  needsPrincipal: true,
  allows: (principal: Principal | undefined) => principal !== undefined
})

/** A caller whose key carries `name` (or every scope): `scope('invoices:read')`. */
export function scope (name: string): Permission {
  if (!SCOPE_PATTERN.test(name)) throw new TypeError(`A scope is letters, digits and _ . : / - only; got ${JSON.stringify(name)}.`)
  return Object.freeze({
    name: `scope ${name}`,
    needsPrincipal: true,
    scope: name,
    allows: (principal: Principal | undefined) => principal !== undefined && (principal.scopes === 'all' || principal.scopes.includes(name))
  })
}

/** The first check that refuses `principal`, or undefined when every one allows it: every transport asks this. */
export function refusingCheck (permissions: readonly Permission[], principal: Principal | undefined): Permission | undefined {
  return permissions.find((permission) => !permission.allows(principal))
}

/** What a 403 says when `permission` refuses `principal` a route (or a tool): who it is, and a scope it lacks, named. */
export function refusalDetail (permission: Permission, principal: Principal | undefined, what: 'route' | 'tool'): string {
  const token = principal?.issuer !== undefined
  const why = permission.scope === undefined
    ? `the "${permission.name}" check refuses it`
    : `it lacks the scope "${permission.scope}"; ${token ? 'sign in again granting it' : 'use a key that carries it'}`
  return `This ${principal === undefined ? 'caller' : callerNoun(principal)} may not call this ${what}: ${why}.`
}

/** How refusals name a caller: by its key, or by its token (from an issuer). */
export function callerNoun (principal: Principal): 'key' | 'token' {
  return principal.issuer === undefined ? 'key' : 'token'
}

/** True when a route with these checks asks for credentials. */
export function needsPrincipal (permissions: readonly Permission[]): boolean {
  return permissions.some((permission) => permission.needsPrincipal)
}

/** The scopes a route's checks ask for, in order, each once. */
export function scopesOf (permissions: readonly Permission[]): string[] {
  return [...new Set(permissions.flatMap((permission) => permission.scope === undefined ? [] : [permission.scope]))]
}
