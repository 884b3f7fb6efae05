// Serves a declaration file's mounts: compiled against the store once it is open, each mounted with
// `app.mount` like any TypeScript resource. A mount the core refuses is refused naming its place in
// the file, with every other problem found (the schema's and the database's too), before anything listens.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { compileDeclarations, type LoadedFile } from '../src/config-file/index.js'

export interface DeclarationFileOptions {
  readonly file: LoadedFile
  /** Where `${NAME}` in the file's upstreams is read from. */
  readonly env: Readonly<Record<string, string | undefined>>
}

async function declarationFile (app: FastifyInstance, options: DeclarationFileOptions): Promise<void> {
  const { file } = options
  const compiled = await compileDeclarations(file, {
    store: app.store,
    env: options.env,
    log: app.log,
    upstreamObserver: app.metrics.upstream,
    validators: app.validators,
    mount: (mount) => { app.mount(mount) }
  })
  app.addHook('onClose', compiled.close)
}

export default fp(declarationFile, { name: 'declaration-file', dependencies: ['mount', 'store', 'metrics'] })
