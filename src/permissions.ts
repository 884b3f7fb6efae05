// Who may call a route. Every mounted route declares its checks; an open route says so.

/** Who made the request: a key's public fingerprint, never the key itself. */
export interface Principal {
  readonly keyId: string
}

export interface Permission {
  /** Named in a 403 and in the OpenAPI document. */
  readonly name: string
  /** False only for `unrestricted`: then no credentials are asked for. */
  readonly needsPrincipal: boolean
  readonly allows: (principal: Principal | undefined) => boolean
}

/** Anyone, with or without a key: the explicit way to open a route. */
export const unrestricted: Permission = Object.freeze({ name: 'unrestricted', needsPrincipal: false, allows: () => true })

/** Any caller presenting a valid key. */
export const signedIn: Permission = Object.freeze({
  name: 'signed-in',
  needsPrincipal: true,
  allows: (principal: Principal | undefined) => principal !== undefined
})

/** The first check that refuses `principal`, or undefined when every one allows it: every transport asks this. */
export function refusingCheck (permissions: readonly Permission[], principal: Principal | undefined): Permission | undefined {
  return permissions.find((permission) => !permission.allows(principal))
}

/** True when a route with these checks asks for credentials. */
export function needsPrincipal (permissions: readonly Permission[]): boolean {
  return permissions.some((permission) => permission.needsPrincipal)
}
