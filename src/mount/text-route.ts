// From a text mount to a Fastify route: the whole text as text/plain to a plain client, a window
// of lines to an agent. The route's common options and its response declarations come from the
// record routes' helpers (route.ts), so every mount publishes its responses the same way.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { AGENT_MEDIA_TYPE, TEXT_VARIANTS } from '../audience.js'
import { NotFoundError } from '../errors.js'
import { lineStyle } from '../paging/index.js'
import type { JsonSchema } from '../projection/index.js'
import { querystringSchema, refuseFromPlainClient, shadowedArguments, splitQuery } from './arguments.js'
import { MountError, type TextMount } from './definition.js'
import { named } from './schemas.js'

/** What every mounted route shares: method, url, config, compilers and the operation's metadata. */
export type RouteBase = Omit<RouteOptions, 'handler'> & { schema: object }

/** The route's response declarations around its two bodies (200 and the problems it can answer). */
export type TextResponses = (bodies: { plain: JsonSchema, agent: JsonSchema }) => Record<string, object>

const PLAIN_TEXT: JsonSchema = { type: 'string', description: 'The whole text, each line ended by a line feed.' }
const LINE: JsonSchema = { type: 'string', description: 'One line of the text, without its line break.' }
const WINDOW_FROM_PLAIN_CLIENT = `Line windows apply to agents only: a plain client gets the whole text. Send \`X-Audience: agent\` or \`Accept: ${AGENT_MEDIA_TYPE}\` for a window.`

export function textRoute (mount: TextMount, route: RouteBase, responses: TextResponses): RouteOptions {
  const style = lineStyle({ maxLines: mount.paging?.maxLines })
  const shadowed = shadowedArguments(mount.arguments, style.parameters)
  if (shadowed.length > 0) throw new MountError(`Route '${mount.name}': arguments named like line-window parameters (${shadowed.join(', ')}); name them otherwise.`)
  return {
    ...route,
    schema: {
      ...route.schema,
      params: mount.params,
      querystring: querystringSchema(mount.arguments, style.parameters),
      // One component for every text route: the window's shape does not depend on the route.
      response: responses({ plain: PLAIN_TEXT, agent: named(style.schema(LINE), 'LineWindow') })
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const { paging, args } = splitQuery(request.query as Record<string, unknown>, style.parameters)
      // Refused before the text is read: a plain client's request is wrong whatever the text.
      if (request.audience === 'plain') refuseFromPlainClient(paging, style.parameters, WINDOW_FROM_PLAIN_CLIENT)
      const lines = await mount.source.lines({ ...args, ...(request.params as object) })
      if (lines === undefined) throw new NotFoundError(`No text at ${request.url.split('?')[0]}.`)
      reply.type(`${TEXT_VARIANTS[request.audience]}; charset=utf-8`)
      if (request.audience === 'plain') return wholeText(lines)
      const window = style.window(paging, lines.length)
      return style.envelope(lines.slice(window.offset, window.offset + window.limit), window)
    }
  }
}

/** POSIX text: every line ends with a line feed, so an empty text is an empty body. */
function wholeText (lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('')
}
