// The MCP transport: every mounted resource as a tool, at `/mcp`, over Streamable HTTP, stateless
// (a server per request, nothing kept between them, so replicas behind a balancer need nothing
// shared). The SDK (`@modelcontextprotocol/server`) speaks the protocol; this plugin only puts the
// gateway's doors in front of it and hands it the request as a web Request, so that the answer goes
// back through Fastify's reply with every header the gateway's hooks set (security headers, CORS,
// rate limits). The tools themselves are src/mcp/tools.ts.
import type { AuthInfo, Server } from '@modelcontextprotocol/server'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'
import { problem } from '../src/core/errors.js'
import { problemOf } from '../src/core/problem.js'
import { directAnswer, directCallOf, type DirectCall } from '../src/mcp/direct.js'
import { mcpServerFor, type McpCaller, type McpCallContext } from '../src/mcp/server.js'
import { refusal, toolsOf, type Tool } from '../src/mcp/tools.js'
import { refusingCheck } from '../src/permissions.js'
import { callerOf as clientOf } from '../src/http/caller.js'
import type { CorsAllowance } from './cors.js'
import { BEARER_ONLY } from './oauth-discovery.js'
import { sendProblem } from './problems.js'

export interface McpOptions {
  /** Browser origins allowed to call (`CORS_ORIGINS`); any other `Origin` is refused (DNS rebinding). */
  origins: readonly string[]
  /** The address the server listens on: on a loopback one, `Host` must name the loopback too. */
  host?: string
  /** The server's name and version, as `initialize` tells a client. */
  info: { name: string, version: string }
}

export const MCP_PATH = '/mcp'

/**
 * What a browser MCP client on an allowed origin may do at `/mcp` (plugins/cors.ts): the methods
 * the route serves, the headers a client of any revision sends, and the session id it would read
 * back (this endpoint hands none out, but a client looks for it).
 */
export const MCP_CORS: CorsAllowance = {
  methods: ['GET', 'HEAD', 'POST', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'],
  exposedHeaders: ['Mcp-Session-Id']
}

/** Room for an `initialize` with a client's capabilities; the server's 1 KiB is for stray bodies. */
const BODY_LIMIT = 64 * 1024

/**
 * The answer to a JSON-RPC batch (a body that is an array). Only the 2025-03-26 revision had them
 * (2025-06-18 dropped them, and the SDK's clients send none); the SDK would run up to 100 calls of
 * one, and answer them in one body, for a single request's share of the rate limit. So none is
 * run: one JSON-RPC error, id null as no one call is answered.
 */
const BATCH_REFUSED = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted; send one message per request.' } } as const

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

type Sdk = typeof import('@modelcontextprotocol/server')
let sdkLoading: Promise<Sdk> | undefined
/** The SDK once loaded: a call then reads it without awaiting a settled promise. */
let loadedSdk: Sdk | undefined
/**
 * The SDK, loaded on first use: about a quarter of the modules the gateway loaded, and an app that
 * serves no MCP call (a test, a command that only reads a file) never needs it. A server that
 * listens loads it as it starts listening, so no caller waits for it.
 */
async function loadSdk (): Promise<Sdk> {
  sdkLoading ??= import('@modelcontextprotocol/server')
  loadedSdk = await sdkLoading
  return loadedSdk
}

async function mcp (app: FastifyInstance, options: McpOptions): Promise<void> {
  let tools: readonly Tool[] = []
  let named = new Map<string, Tool>()
  // Once every route is mounted: each resource's tool, built once, in name order.
  app.addHook('onReady', async () => {
    tools = toolsOf(app.resources, app.actions)
    named = new Map(tools.map((tool) => [tool.definition.name, tool]))
  })
  let handler: Promise<ReturnType<Sdk['createMcpHandler']>> | undefined
  const handlerOf = async (): Promise<ReturnType<Sdk['createMcpHandler']>> => {
    handler ??= loadSdk().then((sdk) => sdk.createMcpHandler(({ authInfo }) => mcpServerFor(sdk, options.info, tools, callerOf(authInfo))))
    return await handler
  }
  app.addHook('onListen', async () => { await handlerOf() })
  app.addHook('onClose', async () => { if (handler !== undefined) await (await handler).close() })

  await app.register(async function mcpRoute (scope) {
    // Refusals raised once the message is read (rate limits, shedding) answer a call as a tool result.
    scope.setErrorHandler(answerRefusal)
    // A message is JSON, whatever its keys: an argument named `__proto__` or `constructor` is refused
    // by its name as unknown (arguments are sorted and checked in objects without a prototype), not
    // taken for a malformed body as Fastify's parser, which refuses such keys, would take it.
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, function parseMessage (_request, body, done) {
      try {
        done(null, JSON.parse(body as string))
      } catch (error) {
        done(error as Error, undefined)
      }
    })
    scope.route({
      method: ['POST', 'GET', 'DELETE'],
      url: MCP_PATH,
      bodyLimit: BODY_LIMIT,
      // Shed and limited per call, after the message is read, so that a call is answered as a call.
      // A wrong key's 401 says there is no OAuth here: an MCP client meeting one goes looking for it.
      config: { keyOptional: true, keyHint: BEARER_ONLY, shed: false, rateLimit: { hook: 'preHandler', groupId: 'mcp' } },
      schema: { hide: true },
      // Its hooks call `done` rather than being async: run on every call, spared a promise and a microtask each.
      // A refusal thrown here is Fastify's to answer, as from any hook.
      onRequest: function checkOrigin (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
        checkDoors(request, options)
        done()
      },
      // Before the rate limit and before anything of it runs: a batch is refused whole (see BATCH_REFUSED).
      preValidation: function refuseBatch (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
        // Answered here: `done` is not called, so nothing after this hook runs.
        if (Array.isArray(request.body)) reply.code(400).type('application/json').send(BATCH_REFUSED)
        else done()
      },
      preHandler: function shedCall (_request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
        const overloaded = app.overloaded()
        if (overloaded !== undefined) throw overloaded
        done()
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const sdk = loadedSdk ?? await loadSdk()
        if (request.method === 'POST') {
          // A token lacking a tool's scope is a 403 naming it, as the MCP authorization specification
          // asks: its client may sign in again for that scope. A key cannot gain one: its refusal stays a tool result.
          const stepUp = scopeRefusal(request, named)
          if (stepUp !== undefined) return sendProblem(stepUp, request, reply)
          // Nearly every message: a plain call of a tool this caller may call (see src/mcp/direct.ts).
          const call = directCall(sdk, request)
          const tool = call === undefined ? undefined : named.get(call.name)
          if (call !== undefined && tool !== undefined && refusingCheck(tool.permissions, request.principal) === undefined) {
            const result = await tool.call(call.arguments, (err) => { request.log.error({ err, tool: call.name }, 'tool call failed') }, contextOf(request, call.name))
            // Sent as the text it is, its type as the SDK's (Fastify would add a charset to a string's
            // JSON type, except through a serializer of the reply's own). A Buffer of it cost a
            // page's answer about 7 % of its CPU: one past Node's pool is an allocation of its own.
            return await reply.code(200).type('application/json').serializer(asWritten).send(directAnswer(call, result))
          }
          // The rest of a 2025 revision's messages, answered whole, as JSON (see answerAsJson).
          const exchange = webRequest(request)
          if (await sdk.isLegacyRequest(exchange, request.body)) {
            const response = await answerAsJson(sdk, mcpServerFor(sdk, options.info, tools, callerFrom(request)), exchange, request.body)
            return await sendWhole(reply, response)
          }
        }
        // The SDK's own entry for the rest: the newer revision, and GET, HEAD and DELETE (405).
        // A client gone is an exchange abandoned: the SDK stops what it was doing for it.
        const abort = new AbortController()
        reply.raw.once('close', () => { abort.abort() })
        const response = await (await handlerOf()).fetch(webRequest(request, abort.signal), { parsedBody: request.body, authInfo: callerInfo(request) })
        // Fastify answers a HEAD by measuring the GET's body, which it cannot do with a Response.
        if (request.method === 'HEAD') return await sendWhole(reply, response)
        return await reply.send(response)
      }
    })
  })
}

export default fp(mcp, { name: 'mcp', dependencies: ['mount', 'auth', 'load-shedding', 'problems', 'metrics'] })

/**
 * The call in a request the SDK's stateless transport would take as it is and hand its `Server`: the
 * media types it insists on, a protocol revision of 2025 (or none: the 2025 default), and a message
 * that is a plain `tools/call`. A request of the newer revision names it in its header.
 */
function directCall (sdk: Sdk, request: FastifyRequest): DirectCall | undefined {
  const { accept, 'content-type': contentType, 'mcp-protocol-version': revision } = request.headers
  if (accept?.includes('application/json') !== true || !accept.includes('text/event-stream') || !sdk.isJsonContentType(contentType ?? null)) return undefined
  if (revision !== undefined && !sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(revision as string)) return undefined
  return directCallOf(request.body)
}

/**
 * One message of a 2025 revision, served as the SDK serves it statelessly (a transport per request,
 * no session), but answered as one JSON body instead of an event stream of one message: the
 * revisions allow either, and clients accept both. Nothing streams: a tool answers once, sending no
 * notifications first. So the answer is written whole, with its length, not piped chunk by chunk.
 * The call runs to its end even if the client leaves: a read, and its answer is dropped.
 */
async function answerAsJson (sdk: Sdk, server: Server, request: Request, body: unknown): Promise<Response> {
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request, { parsedBody: body })
  } finally {
    await server.close()
  }
}

/** The 403 of a tools/call whose token lacks a scope the tool asks for; undefined for anything else. */
function scopeRefusal (request: FastifyRequest, named: ReadonlyMap<string, Tool>): Error | undefined {
  const { principal } = request
  if (principal?.issuer === undefined || rpcOf(request.body)?.method !== 'tools/call') return undefined
  const name = (request.body as { params?: { name?: unknown } }).params?.name
  const tool = typeof name === 'string' ? named.get(name) : undefined
  if (tool === undefined || refusingCheck(tool.permissions, principal)?.scope === undefined) return undefined
  return request.server.permissionRefusal(tool.permissions, principal)
}

/** Who calls, as the request's hooks found them. */
function callerFrom (request: FastifyRequest): McpCaller {
  return { principal: request.principal, keyHint: 'connect with "Authorization: Bearer <key>".', contextOf: (tool) => contextOf(request, tool) }
}

/** What the core is told of a tool call: the request's id and log, and (with metrics) where its rows are counted; the tool names the operation. */
function contextOf (request: FastifyRequest, tool: string): McpCallContext {
  request.operation = tool
  const { rows } = request.server.metrics
  return { principal: request.principal, requestId: request.id, log: request.log, client: clientOf(request), onRows: (count, clamped) => { rows(tool, 'mcp', count, clamped) } }
}

/** The caller, carried to the per-request server as the SDK's auth info: a key's fingerprint, never the key. */
function callerInfo (request: FastifyRequest): AuthInfo {
  const caller = callerFrom(request)
  return { token: '', clientId: request.principal?.keyId ?? 'anonymous', scopes: [], extra: { caller } }
}

function callerOf (authInfo: AuthInfo | undefined): McpCaller {
  return (authInfo as AuthInfo & { extra: { caller: McpCaller } }).extra.caller
}

/** Origin against the allowed origins, Host against the loopback when bound to it: DNS rebinding. */
function checkDoors (request: FastifyRequest, options: McpOptions): void {
  const origin = request.headers.origin
  if (origin !== undefined && !options.origins.includes(origin)) {
    throw problem('AG_FORBIDDEN', 'This Origin may not call the MCP endpoint: only the origins in CORS_ORIGINS may.')
  }
  if (options.host !== undefined && LOOPBACK.has(options.host) && !LOOPBACK.has(request.hostname)) {
    throw problem('AG_FORBIDDEN', 'The server listens on a loopback address: the Host header must name it (localhost or 127.0.0.1).')
  }
}

/**
 * The headers the SDK reads. The key stays out: the caller is passed as auth info (its fingerprint),
 * the body already parsed.
 */
const PROTOCOL_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id', 'last-event-id'] as const

/**
 * The request as the SDK reads it: method, URL and the protocol's headers. A HEAD (which Fastify
 * serves beside every GET) is read as the GET it stands for, so it is refused as a GET is, and
 * Fastify sends its answer without the body.
 */
function webRequest (request: FastifyRequest, signal?: AbortSignal): Request {
  const headers: Record<string, string> = {}
  for (const name of PROTOCOL_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method === 'HEAD' ? 'GET' : request.method, headers, signal })
}

/** A Response of the SDK's, read whole and sent as a Buffer (with its status and headers). */
async function sendWhole (reply: FastifyReply, response: Response): Promise<FastifyReply> {
  return await reply.code(response.status).headers(Object.fromEntries(response.headers)).send(Buffer.from(await response.arrayBuffer()))
}

/** A text already JSON, sent as it is. */
const asWritten = (text: string): string => text

/** A JSON-RPC request as read from the body, when it is one. */
interface RpcRequest { jsonrpc: '2.0', id: string | number, method: string }

function rpcOf (body: unknown): RpcRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const { jsonrpc, id, method } = body as Record<string, unknown>
  return jsonrpc === '2.0' && (typeof id === 'string' || typeof id === 'number') && typeof method === 'string' ? body as RpcRequest : undefined
}

/**
 * A refusal once the message is read: a tool call is answered as a tool result with `isError`
 * (a model can act on it), anything else as the problem it is. A body that is not JSON is JSON-RPC's
 * parse error, the protocol's own answer to a malformed message.
 */
function answerRefusal (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error instanceof SyntaxError) {
    return reply.code(400).type('application/json').send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not a JSON-RPC message.' } })
  }
  const rpc = rpcOf(request.body)
  if (rpc?.method !== 'tools/call') return sendProblem(error, request, reply)
  // The problem's headers (Retry-After) go with the result; its words are the result's text.
  const { headers, body } = problemOf(error)
  request.log.info({ code: error.code }, 'tool call refused')
  request.problemType = body.type
  return reply.code(200).headers(headers).type('application/json').send({ jsonrpc: '2.0', id: rpc.id, result: refusal(body, request.id) })
}
