// The one message the gateway answers without the SDK: a 2025 revision's `tools/call` of a tool the
// caller may call, with nothing in it but a name and an object of arguments. It is nearly every
// message a client sends, and the SDK's way through it (a web Request, the transport's checks, a
// Server, the message validated as it enters and the result as it leaves, a web Response) costs
// about as much as serving the page itself. Its answer here is the one the SDK's Server writes for
// the same call (test/mcp/direct.test.ts compares them message by message); anything else, from
// `initialize` to a call with `_meta` or the newer revision's envelope, is the SDK's (a batch
// reaches neither: the transport refuses it).
import type { ToolResult } from './tools.js'

/** A `tools/call` as the direct path takes it. */
export interface DirectCall {
  readonly id: string | number
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])
const PARAMS_KEYS = new Set(['name', 'arguments'])

/**
 * The call in a parsed body, when it is exactly one JSON-RPC request of `tools/call` whose id is a
 * string or an integer (as MCP's RequestId), with a string name and arguments that are absent or an
 * object, and no other member (no `_meta`: that is where the newer revision's envelope and a task's
 * claims live). Otherwise undefined: the SDK reads it.
 */
export function directCallOf (body: unknown): DirectCall | undefined {
  if (!isPlainObject(body) || !hasOnly(body, MESSAGE_KEYS)) return undefined
  const { jsonrpc, id, method, params } = body
  if (jsonrpc !== '2.0' || method !== 'tools/call') return undefined
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined
  if (!isPlainObject(params) || !hasOnly(params, PARAMS_KEYS) || typeof params.name !== 'string') return undefined
  const args = params.arguments === undefined ? {} : params.arguments
  if (!isPlainObject(args)) return undefined
  return { id: id as string | number, name: params.name, arguments: args }
}

/**
 * The JSON-RPC response carrying a tool's result, as the SDK serializes it. A served result's text
 * block is its structured content's JSON (tools.ts writes it so), so that JSON is written once and
 * sent twice, not serialized again; the bytes are the same.
 */
export function directAnswer (call: DirectCall, result: ToolResult): string {
  if (result.structuredContent === undefined) return JSON.stringify({ result, jsonrpc: '2.0', id: call.id })
  const { text } = result.content[0]
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function hasOnly (value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false
  return true
}
