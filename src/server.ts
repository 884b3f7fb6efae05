// The process: configuration from the environment, the logger, listening, and a graceful shutdown:
// on SIGTERM a drain (readiness 503, everything else still served) so a balancer takes the replica
// out, then the listener closed while requests in flight finish, within a grace period.
import type { Server, ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import closeWithGrace from 'close-with-grace'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger, FastifyError, FastifyHttpOptions, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { pino, type LoggerOptions } from 'pino'
import { DeclarationFileError, refusalReport, type LoadedFile } from './config-file/index.js'
import { closeAll } from './close-all.js'
import declaredApp from './declared-app.js'
import type { GatewayOptions } from './gateway.js'
import { createListener, Generations, type ListenerOptions } from './generations.js'
import { buildGeneration, readDeclarationFile, reloader, UnreadableFileError, type AppGeneration } from './reload.js'
import { PROBLEM_MEDIA_TYPE } from './audience.js'
import { writeRawProblem } from './http/raw-answer.js'
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js'
import { apiSecurityHeaders } from '../plugins/security-headers.js'
import { ConfigError, loadConfig, MEBIBYTE, type Config } from './config.js'
import { configureHeap } from './heap.js'
import { problem } from './core/errors.js'
import { problemOf } from './core/problem.js'
import { processMetrics } from './observe/metrics.js'
import { MissingDatabaseError } from './store/index.js'
import { startTracing } from './observe/tracing.js'
import pkg from '../package.json' with { type: 'json' }

/** Never log credentials: the bearer key is redacted wherever a request is logged. */
export function loggerOptions (level: Config['logLevel']): LoggerOptions {
  return { level, redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' } }
}

/** How long a client has to send its whole request, headers included. */
const REQUEST_TIMEOUT_MS = 10_000

/** How often the request deadline is checked: it holds within this. */
export const DEADLINE_CHECK_MS = 1000

/**
 * Node's options for a request deadline of `ms`, given when the server is created. Set afterwards
 * (as Fastify sets `requestTimeout`), the deadline meets Node's default `headersTimeout` of 60 s, and
 * Node, which takes the smaller of the two for the headers and the larger for the whole request, would
 * let a body trickle in for 60 s: with both equal, the headers and the body share the one deadline.
 */
export function requestDeadline (ms: number): { requestTimeout: number, headersTimeout: number } {
  return { requestTimeout: ms, headersTimeout: ms }
}

/**
 * The listening socket's limits, for a read-only API whose requests are small and quick, so a slow
 * one is cut short rather than holding a socket. Fastify sets them on a server of its own; the
 * process sets them on its one listener (src/generations.ts).
 */
export const LISTENER_LIMITS: ListenerOptions = {
  // A client trickling its request in byte by byte cannot hold a socket. Node checks the deadline
  // every 30 s by default, so it would fire anywhere up to 30 s late: checked every second here.
  requestTimeout: REQUEST_TIMEOUT_MS,
  // A request without Host is refused as a problem (plugins/well-formed.ts), not by Node's bare 400.
  http: { connectionsCheckingInterval: DEADLINE_CHECK_MS, requireHostHeader: false, ...requestDeadline(REQUEST_TIMEOUT_MS) },
  // A socket with no traffic either way for 30 s is closed, a reader that stopped reading included.
  connectionTimeout: 30_000,
  // Idle keep-alive sockets outlive a load balancer's usual 60 s, so the balancer closes them first.
  keepAliveTimeout: 72_000
}

/**
 * The server as `npm start` runs it: the logger, the listener's limits, and limits for a read-only
 * API whose requests are small and quick, so an oversized one is refused rather than read.
 */
export function serverOptions (level: Config['logLevel']): FastifyHttpOptions<Server> {
  return {
    logger: loggerOptions(level),
    ...LISTENER_LIMITS,
    http: { ...LISTENER_LIMITS.http },
    // The caller's X-Request-Id when it is safe to repeat, else a new one: on every log line (reqId).
    genReqId: requestIdOf,
    // Only an action takes a body, and its route says how large (maxBodyBytes): elsewhere 1 KiB is room for a stray one, not for an upload.
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
  const { status, body, headers } = problemOf(frameworkRefusal(error))
  body.request_id = request.id
  // No hook ran: the request-id plugin's header and the security headers are set here.
  reply.header(REQUEST_ID_HEADER, request.id).headers(RAW_SECURITY_HEADERS)
  request.log.info({ status, code: error.code }, 'request rejected')
  reply.code(status).headers(headers).type(PROBLEM_MEDIA_TYPE).send(body)
}

/**
 * What a refusal of the framework's is, in the registry's words: Fastify's own messages quote the
 * offending URL, these do not. Anything else it refuses keeps its status, as `about:blank`.
 */
export function frameworkRefusal (error: Pick<FastifyError, 'code' | 'statusCode'>): Error {
  switch (error.code) {
    case 'FST_ERR_BAD_URL': return problem('AG_MALFORMED_REQUEST', 'The URL has a malformed percent-escape: encode it again.')
    case 'FST_ERR_MAX_PARAM_LENGTH': return problem('AG_PARAMETER_TOO_LONG', 'A path parameter is longer than the server reads (100 characters).')
    default: return Object.assign(new Error('The request could not be routed.'), { statusCode: error.statusCode })
  }
}

/** Failures of the HTTP exchange itself, found before a request exists, by Node's error code. */
const CONNECTION_PROBLEMS: ReadonlyMap<unknown, () => Error> = new Map<unknown, () => Error>([
  ['ERR_HTTP_REQUEST_TIMEOUT', () => problem('AG_REQUEST_TIMEOUT', `The request did not arrive in time: send it whole, headers included, within ${REQUEST_TIMEOUT_MS / 1000} s.`)],
  ['HPE_HEADER_OVERFLOW', () => problem('AG_HEADERS_TOO_LARGE', 'The request\'s headers are too large.')]
])

/** Answers on the raw socket, then closes it: no request, so no reply, exists. */
function connectionProblem (error: Error & { code?: string }, socket: Socket): void {
  // A request on this socket has its answer under way (refused on its headers, before Node's parser
  // failed on what followed them): that answer is the only one, and the socket is closed after what
  // it has written. Node's own handler asks the same of the socket's current response.
  if ((socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage?.headersSent === true) {
    socket.end()
    return
  }
  const known = CONNECTION_PROBLEMS.get(error.code)
  writeRawProblem(socket, problemOf(known === undefined ? problem('AG_MALFORMED_REQUEST', 'The request is not well-formed HTTP/1.1.') : known()), RAW_SECURITY_HEADERS)
}

const RAW_SECURITY_HEADERS = apiSecurityHeaders()

/**
 * On SIGTERM: drain for `shutdownDrainSeconds` (readiness 503 at once, connections still accepted and
 * served, each answer with `Connection: close`), then close the listener, once it has accepted every
 * connection already made (src/close-all.ts), and idle sockets, and let requests in flight finish
 * for up to `shutdownGraceSeconds`; exit 0. Requests still in flight then
 * are cut (a streamed list ends without its final chunk) and the process exits 1. SIGINT (Ctrl-C)
 * skips the drain; a second signal exits 1 at once. SIGHUP closes alike, unless it `reloads` the
 * declaration file instead; from the drain on, a reload is refused.
 */
function shutDownGracefully (listener: Server, generations: Generations<AppGeneration>, log: FastifyBaseLogger, config: Pick<Config, 'shutdownDrainSeconds' | 'shutdownGraceSeconds'>, reloads: boolean, onClosed: () => Promise<void> = async () => {}): void {
  const drainMs = config.shutdownDrainSeconds * 1000
  closeWithGrace({
    skip: reloads ? ['SIGHUP'] : [],
    delay: drainMs + config.shutdownGraceSeconds * 1000,
    logger: { error: (message: unknown) => { log.error(message) } },
    onTimeout: () => { log.error({ cut: generations.inFlight }, 'the grace period is over: requests still in flight are cut, exiting 1') }
  }, async ({ signal, err }) => {
    /* c8 ignore next 4 -- only an uncaught error takes this branch, and no test may crash the server */
    if (err !== undefined) {
      log.error({ err }, 'closing after an error')
      return await closeAll(listener, generations, log)
    }
    generations.current.app.drain()
    if (signal === 'SIGTERM' && drainMs > 0) {
      log.info({ signal, drainSeconds: config.shutdownDrainSeconds }, 'draining: readiness answers 503, requests are still served')
      await sleep(drainMs)
    }
    log.info({ signal, inFlight: generations.inFlight, graceSeconds: config.shutdownGraceSeconds }, 'closing: no new connections, requests in flight finish')
    await closeAll(listener, generations, log)
    await onClosed()
  })
}

/** The configuration from the environment; a bad variable is said on one line, and the process stops (exit 1). */
function configOrStop (env: Readonly<Record<string, string | undefined>>): Config {
  try {
    return loadConfig(env)
  } catch (error) {
    // loadConfig throws only ConfigErrors: one line naming the variable, then stop.
    process.stderr.write((error as ConfigError).report)
    process.exit(1)
  }
}

/** The apps' options, as the configuration sets them (durations in ms, sizes in bytes). */
export function appSettings (config: Config): Config & Pick<GatewayOptions, 'stallMs' | 'contendedStallMs' | 'responseCacheBytes'> {
  return { ...config, stallMs: config.streamStallSeconds * 1000, contendedStallMs: config.streamStallContendedSeconds * 1000, responseCacheBytes: config.responseCacheMegabytes * MEBIBYTE }
}

/** An app serving without a declaration file (the demo), with the settings the configuration gives. */
export type FilelessApp = FastifyPluginAsync<Config & Omit<GatewayOptions, 'setUp' | 'tags' | 'info'>>

/**
 * Serves the declaration file at `path` (else GATEWAY_CONFIG's, else `fileless`'s app) until a signal
 * ends it: `audience-gateway serve` and `npm start`. The demo creates its own database; a file's
 * database must exist (a typo in DATABASE_URL would otherwise serve a new, empty one).
 */
export async function serve (argument: string | undefined, fileless: () => Promise<FilelessApp>): Promise<void> {
  const config = configOrStop(process.env)
  // Before anything is loaded: the process stays near its live size however long a list is, and
  // a page's rows die young.
  configureHeap(config.heapGrowingPercent)
  // A file named on the command line (`audience-gateway serve gateway.json`) wins over GATEWAY_CONFIG.
  const path = argument ?? config.declarationFile
  const file = path === undefined ? undefined : await readOrStop(path)
  const log = pino(loggerOptions(config.logLevel))
  const options = generationOptions(config.logLevel, log)
  // Before the first app: its spans need the provider registered (OTEL_* variables; docs/observability.md).
  const traces = await startTracing(process.env, pkg.version)
  // One set of the process's own metrics, whichever app serves: a reload starts none again.
  const settings = { ...appSettings(config), tracing: traces !== undefined, processMetrics: processMetrics() }
  // Unencapsulated: the shutdown drains through the gateway's decorators.
  const build = async (declared: LoadedFile | undefined): Promise<AppGeneration> => await buildGeneration(options, async (generation) => {
    if (declared === undefined) await generation.register(fp(await fileless()), settings)
    else await generation.register(fp(declaredApp), { ...settings, file: declared, env: process.env, createDatabase: false })
  })
  let first: AppGeneration
  try {
    first = await build(file)
  } catch (error) {
    // What the database says of the file's tables and columns, or the core of its mounts.
    if (error instanceof DeclarationFileError) refuse(error)
    // Anything else (a database out of reach, or not there) is one line too, never a stack.
    process.stderr.write(startRefusal(error))
    process.exit(1)
  }
  const generations = new Generations(first)
  const listener = createListener(generations, LISTENER_LIMITS)
  // Spans not yet exported are sent once every app is closed: the process's, not an app's.
  shutDownGracefully(listener, generations, log, config, path !== undefined, traces?.shutdown)
  // Without a file there is nothing to read again: SIGHUP closes the process, as SIGINT does.
  if (path !== undefined) {
    const reload = reloader({ path, generations, build, log })
    // A reload logs its own failures: it never rejects.
    process.on('SIGHUP', async () => {
      log.info({ path }, 'SIGHUP: reading the declaration file again')
      await reload()
    })
  }
  log.info(`Server listening at ${await listen(listener, config)}`)
}

/**
 * What a start that cannot go on says, on one line: a SQLite file that is not there (a mistyped
 * DATABASE_URL would otherwise make an empty one) with how to create one on purpose.
 */
export function startRefusal (error: unknown): string {
  if (error instanceof MissingDatabaseError) {
    return `Cannot start: DATABASE_URL names no SQLite file: ${error.path} does not exist. Set DATABASE_URL to the SQLite file holding the tables the declaration file reads: none is created for it, as a new one would hold none of them.\n`
  }
  return `Cannot start: ${(error as Error).message}\n`
}

/** A Fastify of a generation's: the server's options, and one logger for them all. */
export function generationOptions (level: Config['logLevel'], log: FastifyBaseLogger): FastifyHttpOptions<Server> {
  const { logger, ...options } = serverOptions(level)
  return { ...options, loggerInstance: log }
}

/** Listens; resolves with the address, as Fastify logs it. */
async function listen (listener: Server, { port, host }: Pick<Config, 'port' | 'host'>): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject)
    listener.listen({ port, host }, () => {
      listener.off('error', reject)
      resolve()
    })
  })
  const address = listener.address() as AddressInfo
  /* c8 ignore next -- test servers listen on 127.0.0.1 only, never on an IPv6 address */
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
}

/** The file at `path`, read and checked; a file that cannot be read or is refused stops the start. */
async function readOrStop (path: string): Promise<LoadedFile> {
  try {
    return await readDeclarationFile(path)
  } catch (error) {
    // A file that cannot be read is said on one line; readDeclarationFile throws only DeclarationFileErrors.
    if (error instanceof UnreadableFileError) {
      process.stderr.write(`Invalid declaration file: ${error.message}\n`)
      process.exit(1)
    }
    refuse(error as DeclarationFileError)
  }
}

/** Every problem of the file on a line of its own, then stop before listening. */
function refuse (error: DeclarationFileError): never {
  process.stderr.write(refusalReport(error.lines))
  process.exit(1)
}
