// The process: configuration from the environment, the logger, listening, and a graceful shutdown:
// on SIGTERM a drain (readiness 503, everything else still served) so a balancer takes the replica
// out, then the listener closed while requests in flight finish, within a grace period.
import { realpathSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import closeWithGrace from 'close-with-grace'
import fp from 'fastify-plugin'
import Fastify, { type FastifyError, type FastifyHttpOptions, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import app from './app.js'
import { DeclarationFileError, loadDeclarationFile, type LoadedFile } from './config-file/index.js'
import declaredApp from './declared-app.js'
import { PROBLEM_MEDIA_TYPE } from './audience.js'
import { writeRawProblem } from './http/raw-answer.js'
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js'
import { apiSecurityHeaders } from '../plugins/security-headers.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { problem } from './core/errors.js'
import { problemOf } from './core/problem.js'
import { startTracing } from './observe/tracing.js'
import pkg from '../package.json' with { type: 'json' }

/** Never log credentials: the bearer key is redacted wherever a request is logged. */
export function loggerOptions (level: Config['logLevel']): FastifyServerOptions['logger'] {
  return { level, redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' } }
}

/** How long a client has to send its whole request, headers included. */
const REQUEST_TIMEOUT_MS = 10_000

/** How often the request deadline is checked: it holds within this. */
export const DEADLINE_CHECK_MS = 1000

/**
 * The server as `npm start` runs it: the logger, and limits for a read-only API whose requests are
 * small and quick, so a slow or oversized one is cut short rather than holding a socket.
 */
export function serverOptions (level: Config['logLevel']): FastifyHttpOptions<Server> {
  return {
    logger: loggerOptions(level),
    // The caller's X-Request-Id when it is safe to repeat, else a new one: on every log line (reqId).
    genReqId: requestIdOf,
    // A client trickling its request in byte by byte cannot hold a socket. Node checks the deadline
    // every 30 s by default, so it would fire anywhere up to 30 s late: checked every second here.
    requestTimeout: REQUEST_TIMEOUT_MS,
    // A request without Host is refused as a problem (plugins/well-formed.ts), not by Node's bare 400.
    http: { connectionsCheckingInterval: DEADLINE_CHECK_MS, requireHostHeader: false },
    // A socket with no traffic either way for 30 s is closed, a reader that stopped reading included.
    connectionTimeout: 30_000,
    // Idle keep-alive sockets outlive a load balancer's usual 60 s, so the balancer closes them first.
    keepAliveTimeout: 72_000,
    // Nothing here takes a body: 1 KiB is room for a stray one, not for an upload.
    bodyLimit: 1024,
    routerOptions: { maxParamLength: 100 },
    // On close: idle sockets are closed at once, in-flight requests finish. A request that still
    // arrives on an open socket is served, with `Connection: close`, rather than given Fastify's
    // own 503, which is not a problem+json; new connections are refused.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    // What Fastify and Node answer before any route runs is a problem+json too.
    frameworkErrors: frameworkProblem,
    clientErrorHandler: connectionProblem
  }
}

/** A URL that cannot be routed (bad escapes, an over-long parameter), answered like any error. */
function frameworkProblem (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // Fastify's own messages quote the offending URL: the detail says what is wrong without echoing it.
  const { status, body, headers } = problemOf(Object.assign(new Error(frameworkDetail(error.code)), { statusCode: error.statusCode }))
  body.request_id = request.id
  // No hook ran: the request-id plugin's header is set here.
  reply.header(REQUEST_ID_HEADER, request.id)
  request.log.info({ status, code: error.code }, 'request rejected')
  reply.code(status).headers(headers).type(PROBLEM_MEDIA_TYPE).send(body)
}

const FRAMEWORK_DETAILS: ReadonlyMap<string, string> = new Map([
  ['FST_ERR_BAD_URL', 'The URL has a malformed percent-escape: encode it again.'],
  ['FST_ERR_MAX_PARAM_LENGTH', 'A path parameter is longer than the server reads (100 characters).']
])

/** What a refusal of the framework's says: its own words quote the URL, these do not. */
export function frameworkDetail (code: string): string {
  return FRAMEWORK_DETAILS.get(code) ?? 'The request could not be routed.'
}

/** Failures of the HTTP exchange itself, found before a request exists, by Node's error code. */
const CONNECTION_PROBLEMS: ReadonlyMap<unknown, () => Error> = new Map<unknown, () => Error>([
  ['ERR_HTTP_REQUEST_TIMEOUT', () => problem('AG_REQUEST_TIMEOUT', `The request did not arrive in time: send it whole, headers included, within ${REQUEST_TIMEOUT_MS / 1000} s.`)],
  ['HPE_HEADER_OVERFLOW', () => problem('AG_HEADERS_TOO_LARGE', 'The request\'s headers are too large.')]
])

/** Answers on the raw socket, then closes it: no request, so no reply, exists. */
function connectionProblem (error: Error & { code?: string }, socket: Socket): void {
  const known = CONNECTION_PROBLEMS.get(error.code)
  writeRawProblem(socket, problemOf(known === undefined ? problem('AG_MALFORMED_REQUEST', 'The request is not well-formed HTTP/1.1.') : known()), RAW_SECURITY_HEADERS)
}

const RAW_SECURITY_HEADERS = apiSecurityHeaders()

/**
 * On SIGTERM: drain for `shutdownDrainSeconds` (readiness 503 at once, connections still accepted and
 * served, each answer with `Connection: close`), then close the listener and idle sockets and let
 * requests in flight finish for up to `shutdownGraceSeconds`; exit 0. Requests still in flight then
 * are cut (a streamed list ends without its final chunk) and the process exits 1. SIGINT (Ctrl-C)
 * skips the drain; a second signal exits 1 at once.
 */
function shutDownGracefully (server: FastifyInstance, config: Pick<Config, 'shutdownDrainSeconds' | 'shutdownGraceSeconds'>): void {
  const drainMs = config.shutdownDrainSeconds * 1000
  closeWithGrace({
    delay: drainMs + config.shutdownGraceSeconds * 1000,
    logger: { error: (message: unknown) => { server.log.error(message) } },
    onTimeout: () => { server.log.error({ cut: server.inFlight }, 'the grace period is over: requests still in flight are cut, exiting 1') }
  }, async ({ signal, err }) => {
    /* c8 ignore next 4 -- only an uncaught error takes this branch, and no test may crash the server */
    if (err !== undefined) {
      server.log.error({ err }, 'closing after an error')
      return await server.close()
    }
    server.drain()
    if (signal === 'SIGTERM' && drainMs > 0) {
      server.log.info({ signal, drainSeconds: config.shutdownDrainSeconds }, 'draining: readiness answers 503, requests are still served')
      await sleep(drainMs)
    }
    server.log.info({ signal, inFlight: server.inFlight, graceSeconds: config.shutdownGraceSeconds }, 'closing: no new connections, requests in flight finish')
    await server.close()
  })
}

async function main (): Promise<void> {
  let config: Config
  try {
    config = loadConfig(process.env)
  } catch (error) {
    // loadConfig throws only ConfigErrors: one line naming the variable, then stop.
    process.stderr.write(`Invalid configuration: ${(error as ConfigError).message}\n`)
    process.exit(1)
  }
  // A file named on the command line (`npm start -- gateway.json`) wins over GATEWAY_CONFIG.
  const path = process.argv[2] ?? config.declarationFile
  const file = path === undefined ? undefined : await readDeclarationFile(path)
  // Before the app: its spans need the provider registered (OTEL_* variables; docs/observability.md).
  const traces = startTracing(process.env, pkg.version)
  const server = Fastify(serverOptions(config.logLevel))
  if (traces !== undefined) server.addHook('onClose', traces.shutdown)
  const settings = { ...config, stallMs: config.streamStallSeconds * 1000, tracing: traces !== undefined }
  try {
    // Unencapsulated: the shutdown below drains through the gateway's decorators.
    if (file === undefined) await server.register(fp(app), settings)
    else await server.register(fp(declaredApp), { ...settings, file, env: process.env })
  } catch (error) {
    // What the database says of the file's tables and columns, or the core of its mounts.
    if (error instanceof DeclarationFileError) refuse(error)
    throw error
  }
  shutDownGracefully(server, config)
  await server.listen({ port: config.port, host: config.host })
}

/** The file at `path`, read and checked; a file that cannot be read or is refused stops the start. */
async function readDeclarationFile (path: string): Promise<LoadedFile> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    process.stderr.write(`Invalid declaration file: ${path} cannot be read (${String((error as NodeJS.ErrnoException).code)}).\n`)
    process.exit(1)
  }
  try {
    return loadDeclarationFile(path, text)
  } catch (error) {
    // loadDeclarationFile throws only DeclarationFileErrors.
    refuse(error as DeclarationFileError)
  }
}

/** Every problem of the file on a line of its own, then stop before listening. */
function refuse (error: DeclarationFileError): never {
  process.stderr.write(`Invalid declaration file (${error.lines.length} ${error.lines.length === 1 ? 'problem' : 'problems'}):\n${error.lines.join('\n')}\n`)
  process.exit(1)
}

// Run when started, not when imported (tests and the bench build the same server from serverOptions).
if (realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main()
