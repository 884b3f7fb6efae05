// The MCP server one caller is answered by, whatever carries the messages (Streamable HTTP at
// `/mcp`, or stdio for a desktop client): the tools this caller may call, and nothing else. A tool
// it may not call is answered as the route would refuse it; an unknown one is a protocol error.
import type { Server } from '@modelcontextprotocol/server'
import { problem } from '../core/errors.js'
import { refusalDetail, refusingCheck, type Permission, type Principal } from '../permissions.js'
import { refused, type CallContext, type Tool } from './tools.js'

type Sdk = typeof import('@modelcontextprotocol/server')

/** What a call is told: its id, where its rows are counted, and a log that also takes what fails unexpectedly. */
export type McpCallContext = CallContext & { readonly log: { warn: (details: object, message: string) => void, error: (details: object, message: string) => void, info: (details: object, message: string) => void } }

/** Who calls, and what each of its calls is told. */
export interface McpCaller {
  readonly principal: Principal | undefined
  /** The context of a call of the tool named `tool`. */
  readonly contextOf: (tool: string) => McpCallContext
  /** How an unauthenticated caller is to bring a key, said when it calls a tool that needs one. */
  readonly keyHint: string
}

/** The server's name and version, as `initialize` tells a client. */
export interface McpServerInfo {
  readonly name: string
  readonly version: string
}

/** A server answering `tools/list` and `tools/call` for `caller`, from the tools built once. */
export function mcpServerFor (sdk: Sdk, info: McpServerInfo, tools: readonly Tool[], caller: McpCaller): Server {
  const { principal } = caller
  const allowed = tools.filter((tool) => refusingCheck(tool.permissions, principal) === undefined)
  const server = new sdk.Server({ ...info }, { capabilities: { tools: {} } })
  server.setRequestHandler('tools/list', async () => ({ tools: allowed.map((tool) => tool.definition) as never }))
  server.setRequestHandler('tools/call', async (message) => {
    const name = message.params.name
    const tool = allowed.find((candidate) => candidate.definition.name === name)
    if (tool !== undefined) {
      const context = caller.contextOf(name)
      return await tool.call(message.params.arguments ?? {}, (err) => { context.log.error({ err, tool: name }, 'tool call failed') }, context)
    }
    // A tool this caller may not call is a refusal it can act on, as the route would answer it.
    const hidden = tools.find((candidate) => candidate.definition.name === name)
    if (hidden !== undefined) return refused(notPermitted(hidden, caller), caller.contextOf(name).requestId)
    throw new sdk.ProtocolError(sdk.ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}. tools/list names the tools.`)
  })
  return server
}

function notPermitted (tool: Tool, { principal, keyHint }: McpCaller): Error {
  if (principal === undefined) return problem('AG_UNAUTHORIZED', `This tool needs a key: ${keyHint}`)
  const refusing = refusingCheck(tool.permissions, principal) as Permission
  return problem('AG_FORBIDDEN', refusalDetail(refusing, principal, 'tool'))
}
