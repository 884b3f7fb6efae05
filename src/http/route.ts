// From a mount to a Fastify route: the flow of one request, in order. Everything that can be
// computed once (projection, schemas, serializers) is computed here, at registration.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { AGENT_MEDIA_TYPE, JSON_VARIANTS, TEXT_VARIANTS, type Variants } from '../audience.js'
import { NotFoundError } from '../errors.js'
import { needsPrincipal } from '../permissions.js'
import { offsetStyle, pageStyle, type PagingStyle } from '../paging/index.js'
import { buildProjection, projectPayload, type JsonSchema, type Projection } from '../projection/index.js'
import { compileArgumentValidator, querystringSchema, refuseFromPlainClient, shadowedArguments, splitQuery } from './arguments.js'
import { MountError, type ListMount, type Mount, type MountSettings, type RetrieveMount } from './definition.js'
import { jsonArrayStream } from './json-array.js'
import { compileSerializer } from './serializer.js'
import { listBodies, problemResponse, variantSchemas } from './schemas.js'
import { textRoute } from './text-route.js'

/** The statuses a mounted route can answer with a problem (`5xx`: any server failure), and when. */
const PROBLEMS: Readonly<Record<string, string>> = {
  400: 'A problem (RFC 9457): a malformed or unknown argument, an unknown audience, or a paging parameter from a plain client.',
  401: 'A problem (RFC 9457): missing or wrong credentials.',
  403: 'A problem (RFC 9457): this key may not call this route.',
  404: 'A problem (RFC 9457): no such record.',
  406: 'A problem (RFC 9457): none of the media types in Accept is on offer.',
  414: 'A problem (RFC 9457): a path parameter longer than the server reads.',
  429: 'A problem (RFC 9457): too many requests from this key or address; retry after the Retry-After header\'s seconds.',
  '5xx': 'A problem (RFC 9457): the server could not complete the request.'
}

const PAGING_FROM_PLAIN_CLIENT = `Paging applies to agents only: a plain client gets the whole list. Send \`X-Audience: agent\` or \`Accept: ${AGENT_MEDIA_TYPE}\` to page.`

export function mountRoute (mount: Mount, settings: MountSettings): RouteOptions {
  if (mount.permissions.length === 0) {
    throw new MountError(`Route '${mount.name}': declare its permission checks; an open route says so with \`unrestricted\`.`)
  }
  if (mount.kind === 'text') {
    return textRoute(mount, common(mount, TEXT_VARIANTS), (bodies) => ({ 200: variants(TEXT_VARIANTS, bodies, 'The text.'), ...problems(mount, 404) }))
  }
  const projection = buildProjection(mount.declaration.schema, {
    name: `Route '${mount.name}'`,
    overrides: mount.overrides,
    timeZone: settings.timeZone
  })
  return mount.kind === 'list' ? listRoute(mount, projection, settings) : retrieveRoute(mount, projection, settings)
}

function listRoute (mount: ListMount, projection: Projection, settings: MountSettings): RouteOptions {
  const style: PagingStyle = mount.paging?.style === 'offset'
    ? offsetStyle(mount.paging)
    : pageStyle({ maxPageSize: mount.paging?.maxPageSize ?? 100, defaultLimit: mount.paging?.defaultLimit })
  const shadowed = shadowedArguments(mount.arguments, style.parameters)
  if (shadowed.length > 0) throw new MountError(`Route '${mount.name}': ${shadowed.join(', ')} ${shadowed.length === 1 ? 'is a paging parameter' : 'are paging parameters'}; name the argument otherwise.`)
  const bodies = listBodies(variantSchemas(mount.declaration, projection, settings, mount.schemaName), style)
  const serializeRow = compileSerializer({ schema: mount.declaration.schema })
  const { present } = mount.declaration

  const route = common(mount, JSON_VARIANTS)
  return {
    ...route,
    schema: {
      ...route.schema,
      querystring: querystringSchema(mount.arguments, style.parameters),
      response: { 200: variants(JSON_VARIANTS, bodies, 'The list.'), ...problems(mount) }
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const { paging, args } = splitQuery(request.query as Record<string, unknown>, style.parameters)
      reply.type(`${JSON_VARIANTS[request.audience]}; charset=utf-8`)
      if (request.audience === 'plain') {
        refuseFromPlainClient(paging, style.parameters, PAGING_FROM_PLAIN_CLIENT)
        return await jsonArrayStream(mount.source.stream(args), (row) => serializeRow(present(row)))
      }
      const total = await mount.source.count(args)
      const window = style.window(paging, total)
      const rows = window.limit > 0 && window.offset < total ? await mount.source.slice(args, window.offset, window.limit) : []
      return style.envelope(projectPayload(rows.map(present), projection) as unknown[], window)
    }
  }
}

function retrieveRoute (mount: RetrieveMount, projection: Projection, settings: MountSettings): RouteOptions {
  const schemas = variantSchemas(mount.declaration, projection, settings, mount.schemaName)
  const { present } = mount.declaration
  const route = common(mount, JSON_VARIANTS)
  return {
    ...route,
    schema: {
      ...route.schema,
      params: mount.params,
      querystring: querystringSchema(mount.arguments, {}),
      response: {
        200: variants(JSON_VARIANTS, { plain: schemas.plainItem as JsonSchema, agent: schemas.agentItem }, 'The record.'),
        ...problems(mount, 404)
      }
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const args = { ...(request.query as object), ...(request.params as object) }
      const row = await mount.source.one(args)
      if (row === undefined) throw new NotFoundError(`No record matches ${describeArgs(request.params as object)}.`)
      reply.type(JSON_VARIANTS[request.audience])
      const presented = present(row)
      return request.audience === 'agent' ? projectPayload(presented, projection) : presented
    }
  }
}

function common (mount: Mount, routeVariants: Variants): Omit<RouteOptions, 'handler'> & { schema: object } {
  const schema: Record<string, unknown> = {
    operationId: mount.name,
    summary: mount.summary,
    description: mount.description,
    tags: mount.tags === undefined ? undefined : [...mount.tags]
  }
  return {
    method: 'GET',
    url: mount.url,
    config: { variants: routeVariants, permissions: mount.permissions },
    validatorCompiler: compileArgumentValidator,
    serializerCompiler: compileSerializer,
    schema
  }
}

function variants (routeVariants: Variants, bodies: { plain: JsonSchema, agent: JsonSchema }, description: string): object {
  return {
    description,
    content: {
      [routeVariants.plain]: { schema: bodies.plain },
      [routeVariants.agent]: { schema: bodies.agent }
    }
  }
}

/**
 * The problems a mounted route can answer with: a 401 and a 403 only where its checks ask for a key
 * (an unrestricted route refuses no one), a 414 where a path parameter can be too long.
 */
function problems (mount: Mount, ...extra: number[]): Record<string, object> {
  const statuses = [
    400,
    ...(needsPrincipal(mount.permissions) ? [401, 403] : []),
    ...extra,
    406,
    // Refused before any route runs when the parameter is longer than the server reads.
    ...(mount.url.includes(':') ? [414] : []),
    429,
    '5xx'
  ]
  const responses: Record<string, object> = {}
  for (const status of statuses) {
    responses[status] = problemResponse(PROBLEMS[status])
  }
  return responses
}

function describeArgs (args: object): string {
  return Object.entries(args).map(([name, value]) => `${name} ${String(value)}`).join(', ')
}
