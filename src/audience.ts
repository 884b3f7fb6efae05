// The two kinds of reader, and the media types that tell their variants apart in OpenAPI.

export const AUDIENCES = ['plain', 'agent'] as const
export type Audience = typeof AUDIENCES[number]

/** The agent variant's own media type: OpenAPI tells variants apart only by media type. */
export const AGENT_MEDIA_TYPE = 'application/vnd.audience-gateway.agent+json'
export const PLAIN_MEDIA_TYPE = 'application/json'
export const PROBLEM_MEDIA_TYPE = 'application/problem+json'

/** The header an agent names itself with; its only accepted value is `agent`. */
export const AUDIENCE_HEADER = 'x-audience'

/** The media type each audience is served in, for one route. */
export type Variants = Readonly<Record<Audience, string>>

export const JSON_VARIANTS: Variants = { plain: PLAIN_MEDIA_TYPE, agent: AGENT_MEDIA_TYPE }
export const TEXT_VARIANTS: Variants = { plain: 'text/plain', agent: AGENT_MEDIA_TYPE }
