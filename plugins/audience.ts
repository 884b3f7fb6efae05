// Which reader is this? For routes that declare their variants, the audience header decides, else
// Accept is negotiated; request.audience carries the answer and Vary tells caches what it hung on.
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import Negotiator from 'negotiator'
import vary from 'vary'
import { AUDIENCE_HEADER, AUDIENCES, type Audience, type Variants } from '../src/audience.js'
import { echoed, echoedList } from '../src/core/echo.js'
import { problem } from '../src/core/errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who reads this response; `plain` unless the route is negotiated and the client said otherwise. */
    audience: Audience
    /** The route's config, read once (see routeConfig). */
    gatewayRouteConfig: FastifyContextConfig | null
  }
  interface FastifyContextConfig {
    /** The media type each audience is served in. Routes without it are not negotiated. */
    variants?: Variants
  }
}

export interface AudienceOptions {
  /** The header an agent names itself with. Default `x-audience`. */
  header?: string
}

async function audience (app: FastifyInstance, options: AudienceOptions): Promise<void> {
  const header = (options.header ?? AUDIENCE_HEADER).toLowerCase()
  const varyFields = ['Accept', displayName(header)]
  const varyText = varyFields.join(', ')

  app.decorateRequest('audience', 'plain')
  app.decorateRequest('gatewayRouteConfig', null)

  // Both hooks run on every request: with `done` rather than async, each is spared a promise and
  // a microtask; a refusal thrown here still reaches the problems plugin.
  app.addHook('onRequest', function resolveAudience (request: FastifyRequest, _reply: FastifyReply, done: () => void) {
    const { variants } = routeConfig(request)
    if (variants !== undefined) {
      // One text: Node joins a repeated header with commas (only Set-Cookie stays a list). Not
      // `[named].flat()`: Array.prototype.flat costs a request about a microsecond.
      const named = request.headers[header]
      request.audience = named === undefined
        ? negotiate(request.headers.accept, variants)
        : audienceNamed(String(named), header)
    }
    done()
  })

  // At onSend, errors included, so the header holds whatever another plugin set before or after.
  app.addHook('onSend', function addVary (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) {
    if (routeConfig(request).variants !== undefined) {
      const current = reply.getHeader('vary')
      reply.header('vary', current === undefined ? varyText : vary.append(headerText(current), varyFields))
    }
    done(null, payload)
  })
}

export default fp(audience, { name: 'audience' })

/**
 * The config of the route `request` matched, as `request.routeOptions.config` gives it. Fastify's
 * getter builds the whole `routeOptions` object on every read, and four hooks read it on every
 * request: it is read once, and kept on the request.
 */
export function routeConfig (request: FastifyRequest): FastifyContextConfig {
  return request.gatewayRouteConfig ?? (request.gatewayRouteConfig = request.routeOptions.config)
}

/**
 * `agent` or `plain`, case and surrounding spaces aside. Node joins a repeated header with commas:
 * the same audience given twice is that audience; two different ones are refused.
 */
function audienceNamed (value: string, header: string): Audience {
  // As agents send it: one audience, written as it is known, decided without splitting.
  if (KNOWN.has(value)) return value as Audience
  const named = [...new Set(value.split(',').map((part) => part.trim().toLowerCase()))]
  const known = AUDIENCES.find((audience) => audience === named[0])
  if (named.length === 1 && known !== undefined) return known
  const reason = named.length === 1
    ? `Unknown audience ${JSON.stringify(echoed(value.trim()))} in the ${displayName(header)} header.`
    : `The ${displayName(header)} header is given more than once, with different values (${echoedList(named, (part) => JSON.stringify(echoed(part)))}): send it once.`
  throw problem('AG_UNKNOWN_AUDIENCE',
    `${reason} Known audiences: ${AUDIENCES.join(', ')}. Send "${displayName(header)}: agent" for the agent variant, ` +
    `and "${displayName(header)}: plain" or no header for the plain one.`
  )
}

const KNOWN: ReadonlySet<string> = new Set(AUDIENCES)

/**
 * Accept against the route's two media types, q-values honoured. Parameters other than q are
 * dropped first: `application/json; charset=utf-8` still asks for `application/json`.
 */
function negotiate (accept: string | undefined, variants: Variants): Audience {
  if (accept === undefined || accept.trim() === '') return 'plain'
  const entries = segments(accept, ENTRIES).map(withoutParameters)
  const offered = [variants.plain, variants.agent]
  const preferred = new Negotiator({ headers: { accept: entries.join(',') } }).mediaType(offered)
  if (preferred === undefined) {
    throw problem('AG_NOT_ACCEPTABLE',
      `None of the media types in Accept is on offer. On offer: ${offered.join(', ')}.`
    )
  }
  // Negotiator breaks a tie (equal q and specificity) by header order, then by offer order. Asked
  // again with both reversed, it answers differently exactly when there was a tie: then plain.
  const reversed = new Negotiator({ headers: { accept: entries.toReversed().join(',') } }).mediaType(offered.toReversed())
  return preferred === reversed && preferred === variants.agent ? 'agent' : 'plain'
}

/** One Accept entry or parameter: anything up to the separator, quoted strings kept whole. */
const ENTRIES = /(?:[^,"]|"(?:\\.|[^"\\])*")+/g
const PARAMETERS = /(?:[^;"]|"(?:\\.|[^"\\])*")+/g
const WEIGHT = /^\s*q\s*=/i

function withoutParameters (entry: string): string {
  const [type, ...parameters] = segments(entry, PARAMETERS)
  return [type, ...parameters.filter((parameter) => WEIGHT.test(parameter))].join(';')
}

function segments (text: string, pattern: RegExp): string[] {
  return Array.from(text.matchAll(pattern), (match) => match[0])
}

function headerText (value: string | number | string[]): string {
  return [value].flat().join(', ')
}

/** `x-audience` -> `X-Audience`, as the header is written in Vary and in messages. */
function displayName (header: string): string {
  return header.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
}
