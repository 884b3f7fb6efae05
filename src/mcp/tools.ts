// The MCP transport's half that knows no HTTP: a resource as an MCP tool, and a tool call as a call
// of the core. It only translates, as the HTTP route does: the tool's input schema is the resource's
// closed arguments, path parameters and (agent) paging parameters in one object; its output schema is
// the agent variant; a call is served to the agent audience, and any failure becomes a tool result
// with `isError` whose text is the problem's own words. Nothing here is computed per call but the call.
import { bareRecord } from '../core/arguments.js'
import { quotedName } from '../core/echo.js'
import { MountError } from '../core/mount.js'
import { problemOf, type Problem } from '../core/problem.js'
import type { Resource } from '../core/resource.js'
import type { Call, Served } from '../core/serve.js'
import type { JsonSchema } from '../projection/index.js'
import type { AuditLog } from '../core/act.js'
import type { ActionResource } from '../core/action.js'
import type { Permission } from '../permissions.js'
import { actionToolOf } from './action-tools.js'

/** What a transport tells the core of one call: who calls (and from where), the request's id and log, and where its rows are counted. */
export type CallContext = Pick<Call, 'principal' | 'requestId' | 'onRows' | 'client'> & { readonly log?: Call['log'] & Partial<AuditLog> }

/** What a tool says of itself to `tools/list`, as the MCP schema names it. */
export interface ToolDefinition {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonSchema & { readonly type: 'object' }
  readonly outputSchema: JsonSchema & { readonly type: 'object' }
  readonly annotations: { readonly readOnlyHint: boolean, readonly destructiveHint?: boolean, readonly idempotentHint: boolean, readonly openWorldHint: boolean }
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
  /** Who may call it: the resource's or the action's checks. */
  readonly permissions: readonly Permission[]
  /** Serves one call; `onFailure` is told of a failure that is not a refusal (a 500: a defect to log). */
  call: (args: Readonly<Record<string, unknown>>, onFailure: (error: unknown) => void, context?: CallContext) => Promise<ToolResult>
}

/** Every read the gateway serves: it changes nothing, the same call answers the same, and it reads only its own store. */
const ANNOTATIONS = Object.freeze({ readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const)

/** Every resource and action as a tool, in name order: what `tools/list` lists, built once when the app is ready. */
export function toolsOf (resources: readonly Resource[], actions: readonly ActionResource[] = []): Tool[] {
  return [...resources.map(toolOf), ...actions.map(actionToolOf)].sort((a, b) => a.definition.name.localeCompare(b.definition.name))
}

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
    permissions: resource.permissions,
    call: async (args, onFailure, context = {}) => {
      const { params, rest: query } = splitArguments(args, isPath)
      try {
        const served = await resource.serve({ audience: 'agent', query, params, ...context })
        // An agent is always served JSON (an envelope, a record, a line window), never a stream.
        return answered((served as Served & { kind: 'json' }).body as Record<string, unknown>)
      } catch (error) {
        return failed(error, onFailure, context.requestId)
      }
    }
  }
}

/**
 * A call's arguments: the path parameters (by name) apart from the rest. Without a prototype, so
 * an argument named `__proto__` is kept, and refused by its name.
 */
export function splitArguments (args: Readonly<Record<string, unknown>>, isPath: ReadonlySet<string>): { params: Record<string, unknown>, rest: Record<string, unknown> } {
  const params = bareRecord()
  const rest = bareRecord()
  for (const [name, value] of Object.entries(args)) (isPath.has(name) ? params : rest)[name] = value
  return { params, rest }
}

/** A call's failure as a tool result; a 500 (a defect, not a refusal) is told to `onFailure` first. */
export function failed (error: unknown, onFailure: (error: unknown) => void, requestId?: string): ToolResult {
  const { status, body } = problemOf(error)
  if (status === 500) onFailure(error)
  return refusal(body, requestId)
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
export function answered (body: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body }
}

/** Any failure, in the words its problem would say over HTTP: what was wrong, and what to send instead. */
export function refused (error: unknown, requestId?: string): ToolResult {
  return refusal(problemOf(error).body, requestId)
}

/** Where a refusal carries the request's id: the result's `_meta`, as MCP reserves it for such data. */
export const REQUEST_ID_META = 'audience-gateway/request_id'

/**
 * A problem as a tool result: its title, status and detail, then each offending argument with what
 * is wrong with it (a tool result has no `errors` member: they are in the text itself); the
 * request's id in `_meta`, for a person quoting the failure to an operator. The names and how many
 * are listed are bounded where the problem is made (src/core/echo.ts).
 */
export function refusal (body: Problem, requestId?: string): ToolResult {
  const lines = [`${body.title} (${body.status}): ${body.detail}`]
  for (const [name, messages] of Object.entries(body.errors ?? {})) for (const message of messages) lines.push(`- ${quotedName(name)}: ${message}`)
  // An action no longer available: the affordance's code, for the agent to act on (the reason is in the detail).
  if (body.code !== undefined) lines.push(`- code: ${body.code}`)
  const result: ToolResult = { content: [{ type: 'text', text: lines.join('\n') }], isError: true }
  // `_meta` first, where the SDK writes it: the direct path's bytes are the SDK's (direct.ts).
  return requestId === undefined ? result : { _meta: { [REQUEST_ID_META]: requestId }, ...result }
}
