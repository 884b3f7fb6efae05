// The MCP transport's half that knows no HTTP: a resource as an MCP tool, and a tool call as a call
// of the core. It only translates, as the HTTP route does: the tool's input schema is the resource's
// closed arguments, path parameters and (agent) paging parameters in one object; its output schema is
// the agent variant; a call is served to the agent audience, and any failure becomes a tool result
// with `isError` whose text is the problem's own words. Nothing here is computed per call but the call.
import { MountError } from '../core/mount.js'
import type { ArgumentErrors } from '../core/errors.js'
import { problemOf, type Problem } from '../core/problem.js'
import type { Resource } from '../core/resource.js'
import type { Call, Served } from '../core/serve.js'
import type { JsonSchema } from '../projection/index.js'

/** What a transport tells the core of one call: the request's id, and where its rows are counted. */
export type CallContext = Pick<Call, 'requestId' | 'onRows'>

/** What a tool says of itself to `tools/list`, as the MCP schema names it. */
export interface ToolDefinition {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonSchema & { readonly type: 'object' }
  readonly outputSchema: JsonSchema & { readonly type: 'object' }
  readonly annotations: { readonly readOnlyHint: true, readonly idempotentHint: true, readonly openWorldHint: false }
}

/** A tool call's answer: the agent body as structured content and as text, or the problem as text. */
export interface ToolResult {
  [key: string]: unknown
  readonly content: Array<{ type: 'text', text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: true
}

export interface Tool {
  readonly definition: ToolDefinition
  readonly resource: Resource
  /** Serves one call; `onFailure` is told of a failure that is not a refusal (a 500: a defect to log). */
  call: (args: Readonly<Record<string, unknown>>, onFailure: (error: unknown) => void, context?: CallContext) => Promise<ToolResult>
}

/** Every read the gateway serves: it changes nothing, the same call answers the same, and it reads only its own store. */
const ANNOTATIONS = Object.freeze({ readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const)

/** A resource as a tool, built once when the app is ready. */
export function toolOf (resource: Resource): Tool {
  const pathNames = Object.keys(resource.params?.properties ?? {})
  const clash = pathNames.filter((name) => Object.hasOwn(resource.query.properties, name))
  if (clash.length > 0) throw new MountError(`Route '${resource.name}': ${clash.join(', ')} is both a path parameter and an argument; a tool takes one object of arguments.`)
  const definition: ToolDefinition = {
    name: resource.name,
    title: resource.summary,
    description: resource.description ?? resource.summary,
    inputSchema: inputSchema(resource),
    outputSchema: resource.bodies.agent as ToolDefinition['outputSchema'],
    annotations: ANNOTATIONS
  }
  const isPath = new Set(pathNames)
  return {
    definition,
    resource,
    call: async (args, onFailure, context = {}) => {
      const query: Record<string, unknown> = {}
      const params: Record<string, unknown> = {}
      for (const [name, value] of Object.entries(args)) (isPath.has(name) ? params : query)[name] = value
      try {
        const served = await resource.serve({ audience: 'agent', query, params, ...context })
        // An agent is always served JSON (an envelope, a record, a line window), never a stream.
        return answered((served as Served & { kind: 'json' }).body as Record<string, unknown>)
      } catch (error) {
        const { status, body } = problemOf(error)
        if (status === 500) onFailure(error)
        return refusal(body, context.requestId)
      }
    }
  }
}

/** The query's properties and the path's, in one closed object; what the path needs is required. */
function inputSchema (resource: Resource): ToolDefinition['inputSchema'] {
  const required = [...(resource.params?.required ?? []), ...(resource.query.required ?? [])]
  return {
    type: 'object',
    properties: { ...resource.params?.properties, ...resource.query.properties },
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false
  } as unknown as ToolDefinition['inputSchema']
}

/** The body as structured content, and its JSON as the one text block (direct.ts relies on it being exactly that). */
function answered (body: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body }
}

/** Any failure, in the words its problem would say over HTTP: what was wrong, and what to send instead. */
export function refused (error: unknown, requestId?: string): ToolResult {
  return refusal(problemOf(error).body, requestId)
}

/** Where a refusal carries the request's id: the result's `_meta`, as MCP reserves it for such data. */
export const REQUEST_ID_META = 'audience-gateway/request_id'

/**
 * A problem as a tool result: its title, status and detail, or, for invalid arguments, each
 * offending argument with what is wrong with it; the request's id in `_meta`, for a person quoting
 * the failure to an operator.
 */
export function refusal (body: Problem, requestId?: string): ToolResult {
  const text = body.errors === undefined ? `${body.title} (${body.status}): ${body.detail}` : argumentsText(body, body.errors)
  const result: ToolResult = { content: [{ type: 'text', text }], isError: true }
  // `_meta` first, where the SDK writes it: the direct path's bytes are the SDK's (direct.ts).
  return requestId === undefined ? result : { _meta: { [REQUEST_ID_META]: requestId }, ...result }
}

/** Lines of argument errors a refusal lists: more than a model's call ever earns, few enough to read. */
export const LISTED_ERRORS = 20

/** An argument's name is the caller's own text: shown up to this length. */
const SHOWN_NAME = 64

/**
 * Invalid arguments in the text itself: a tool result has no `errors` member for the problem's
 * detail to point at. Bounded, as the names are the caller's: a call of a thousand unknown
 * arguments is told of the first few and how many more there are.
 */
function argumentsText (body: Problem, errors: ArgumentErrors): string {
  const count = Object.keys(errors).length
  const lines = Object.entries(errors).flatMap(([name, messages]) => messages.map((message) => `- ${shownName(name)}: ${message}`))
  const head = `${body.title} (${body.status}): The call has ${count === 1 ? 'an invalid argument' : `${count} invalid arguments`}:`
  const rest = lines.length - LISTED_ERRORS
  const more = rest > 0 ? [`- and ${rest} more: the tool's inputSchema (tools/list) names the arguments it takes.`] : []
  return [head, ...lines.slice(0, LISTED_ERRORS), ...more].join('\n')
}

/** A plain name as it is; any other (spaces, line breaks, too long) quoted as JSON, cut to its first characters. */
function shownName (name: string): string {
  if (name.length <= SHOWN_NAME && /^[\w./-]+$/.test(name)) return name
  return JSON.stringify(name.length > SHOWN_NAME ? `${name.slice(0, SHOWN_NAME)}…` : name)
}
