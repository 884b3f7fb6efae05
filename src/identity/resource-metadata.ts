// What an OAuth client is told of this gateway as a protected resource (RFC 9728): which resource
// it is, whose tokens it takes and which scopes its routes ask for; and where that is published.
import type { IdentitySettings } from './tokens.js'

/** Where RFC 9728 puts a resource's metadata: under its origin, its path (`/mcp`) after the well-known name. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource'

/** The protected-resource metadata document, its scopes those the routes ask for. */
export function protectedResourceMetadata (identity: IdentitySettings, scopes: Iterable<string>): object {
  return {
    resource: identity.audience,
    authorization_servers: identity.issuers.map(({ issuer }) => issuer),
    scopes_supported: [...scopes].sort(),
    bearer_methods_supported: ['header'],
    resource_name: 'audience-gateway'
  }
}

/** The URL of the metadata of the resource `audience` names, as a 401's challenge points to it. */
export function resourceMetadataUrl (audience: string): string {
  const url = new URL(audience)
  return `${url.origin}${PROTECTED_RESOURCE_PATH}${url.pathname.replace(/\/$/, '')}`
}
