// MCP over stdio, for the desktop and IDE clients that start a server as a command: the tools of an
// app's mounts, for the one caller the process was started for. The same tools, envelopes and
// refusals as `/mcp`; stdout carries protocol messages and nothing else (logs go to stderr).
import { randomUUID } from 'node:crypto'
import type { Readable, Writable } from 'node:stream'
import type { Resource } from '../core/resource.js'
import type { Principal } from '../permissions.js'
import type { ActionResource } from '../core/action.js'
import { mcpServerFor, type McpCallContext, type McpServerInfo } from './server.js'
import { toolsOf } from './tools.js'

export interface McpStdioOptions {
  /** The app's mounted resources (`app.resources`), once it is ready. */
  readonly resources: readonly Resource[]
  /** The app's mounted actions (`app.actions`): tools too. */
  readonly actions?: readonly ActionResource[]
  readonly info: McpServerInfo
  /** The caller: the key the process was given; none, and only the unrestricted tools are listed. */
  readonly principal: Principal | undefined
  /** Said to a caller without a key that calls a tool needing one: how to give the process a key. */
  readonly keyHint: string
  /** Where each call logs (stderr); told the call's request id. */
  readonly log: { child: (bindings: { reqId: string }) => McpCallContext['log'] }
  /** Told how many rows a call served, and whether its window was clamped (metrics). */
  readonly onRows: (tool: string, rows: number, clamped: boolean) => void
  /** The streams (default: the process's stdin and stdout). */
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/** Serves until the client closes its end; resolves with a way to stop sooner. */
export async function serveMcpStdio (options: McpStdioOptions): Promise<{ close: () => Promise<void> }> {
  const { serveStdio, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio')
  const sdk = await import('@modelcontextprotocol/server')
  const tools = toolsOf(options.resources, options.actions)
  const contextOf = (tool: string): McpCallContext => {
    const requestId = randomUUID()
    return { principal: options.principal, requestId, log: options.log.child({ reqId: requestId }), onRows: (rows, clamped) => { options.onRows(tool, rows, clamped) } }
  }
  const caller = { principal: options.principal, keyHint: options.keyHint, contextOf }
  const transport = new StdioServerTransport(options.stdin, options.stdout)
  return serveStdio(() => mcpServerFor(sdk, options.info, tools, caller), { transport })
}
