// Reading the declaration file again (on SIGHUP): a valid file becomes a new generation, a whole new
// app (its routes, OpenAPI document and MCP tools), that new requests go to while the old one
// finishes its own; a refused file is logged, every problem on a line of its own, and the old
// generation keeps serving. Reloads run one at a time: one asked for meanwhile runs after, and
// reads the file as it is then, so the last file wins.
import { readFile, stat } from 'node:fs/promises'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import Fastify, { type FastifyBaseLogger, type FastifyHttpOptions, type FastifyInstance } from 'fastify'
import { DeclarationFileError, loadDeclarationFile, type LoadedFile } from './config-file/index.js'
import type { Generation, Generations } from './generations.js'

/** A generation that is a Fastify app of its own, ready, attached to no listener. */
export interface AppGeneration extends Generation {
  readonly app: FastifyInstance
}

/**
 * `register` run on a Fastify of its own built with `options`, made ready: a generation. Its server is
 * a stand-in that never listens (the listener hands it requests and forwards its connection-level
 * events). Whatever `register` opened is closed again if the app fails to get ready.
 */
export async function buildGeneration (options: FastifyHttpOptions<Server>, register: (app: FastifyInstance) => Promise<void>): Promise<AppGeneration> {
  let serve!: (request: IncomingMessage, response: ServerResponse) => void
  const app = Fastify({
    ...options,
    serverFactory: (handler) => {
      serve = handler
      return createServer()
    }
  }) as unknown as FastifyInstance
  try {
    await register(app)
    await app.ready()
  } catch (error) {
    await app.close()
    throw error
  }
  return { app, serve, events: app.server, close: async () => { await app.close() } }
}

/** A declaration file that could not be read at all: its one problem. */
export class UnreadableFileError extends DeclarationFileError {
  override name = 'UnreadableFileError'
}

/**
 * The largest declaration file read: a large catalogue of records and mounts is tens of KiB, and
 * reading, locating and checking a file costs about fifty times its size in memory.
 */
export const MAX_DECLARATION_FILE_BYTES = 1024 * 1024

/** The file at `path`, read and checked; throws a DeclarationFileError naming every problem. */
export async function readDeclarationFile (path: string): Promise<LoadedFile> {
  let text: string
  try {
    const { size } = await stat(path)
    if (size > MAX_DECLARATION_FILE_BYTES) throw new UnreadableFileError([`${path} is ${size} bytes: a declaration file is read up to ${MAX_DECLARATION_FILE_BYTES} bytes (1 MiB).`])
    text = await readFile(path, 'utf8')
  } catch (error) {
    if (error instanceof UnreadableFileError) throw error
    throw new UnreadableFileError([`${path} cannot be read (${String((error as NodeJS.ErrnoException).code)}).`])
  }
  return loadDeclarationFile(path, text)
}

export interface ReloaderOptions {
  /** The declaration file, read again on each reload. */
  readonly path: string
  readonly generations: Generations<AppGeneration>
  /** The app for a checked file; throws a DeclarationFileError for what the database or the core refuses. */
  readonly build: (file: LoadedFile) => Promise<AppGeneration>
  readonly log: Pick<FastifyBaseLogger, 'info' | 'error'>
}

/** What one reload did. */
export type Reloaded = 'reloaded' | 'refused'

/**
 * A function that reloads, serialised: called while a reload runs, it waits for that one and then
 * reloads again (however many calls arrived meanwhile), resolving with what that last reload did.
 */
export function reloader (options: ReloaderOptions): () => Promise<Reloaded> {
  let running: Promise<Reloaded> | undefined
  let again = false
  async function passes (): Promise<Reloaded> {
    let outcome: Reloaded
    do {
      again = false
      outcome = await reloadOnce(options)
    } while (again)
    running = undefined
    return outcome
  }
  return async function reload () {
    if (running !== undefined) {
      again = true
      return await running
    }
    running = passes()
    return await running
  }
}

async function reloadOnce ({ path, generations, build, log }: ReloaderOptions): Promise<Reloaded> {
  // From the drain on (src/server.ts), the routes in service are the last.
  if (generations.current.app.draining) {
    log.info({ path }, 'reload refused: the process is shutting down')
    return 'refused'
  }
  let next: AppGeneration
  try {
    next = await build(await readDeclarationFile(path))
  } catch (error) {
    refused(log, path, error)
    return 'refused'
  }
  // The shutdown began while the new app was built: it is not served, and is closed at once.
  if (generations.current.app.draining) {
    await next.close()
    log.info({ path }, 'reload refused: the process is shutting down')
    return 'refused'
  }
  const previous = generations.current
  const closed = generations.replace(next)
  log.info({ path, ...changes(previous.app, next.app), finishing: previous.app.inFlight }, 'reloaded: new requests are served from the file as it is now, requests in flight finish on the routes they began on')
  closed.then(
    () => { log.info({ path }, 'the routes the file replaced are closed: their last request ended') },
    /* c8 ignore next -- closing an app that served has no failure a test can cause */
    (err: unknown) => { log.error({ err, path }, 'closing the routes the file replaced failed') }
  )
  return 'reloaded'
}

/** Every problem on a line of its own, as at start; anything else (the database out of reach) with its error. */
function refused (log: ReloaderOptions['log'], path: string, error: unknown): void {
  if (error instanceof DeclarationFileError) {
    const count = error.lines.length
    log.error({ path, problems: count }, `reload refused: the declaration file has ${count} ${count === 1 ? 'problem' : 'problems'}; the routes in service are kept`)
    for (const line of error.lines) log.error({ path }, line)
    return
  }
  log.error({ path, err: error }, 'reload refused: the app could not be built; the routes in service are kept')
}

/** How many mounts there were and are, and which URLs came and went. */
function changes (previous: FastifyInstance, next: FastifyInstance): { mounts: number, was: number, added: string[], removed: string[] } {
  const before = new Set(previous.resources.map(routeName))
  const after = new Set(next.resources.map(routeName))
  return {
    mounts: after.size,
    was: before.size,
    added: [...after].filter((name) => !before.has(name)),
    removed: [...before].filter((name) => !after.has(name))
  }
}

function routeName (resource: FastifyInstance['resources'][number]): string {
  return `${resource.url} (${resource.name})`
}
