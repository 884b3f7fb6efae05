// Serves a declaration file's mounts: compiled against the store once it is open, then mounted with
// `app.mount` like any TypeScript resource. A mount the core refuses is refused naming its place in
// the file, with every other problem found, before anything listens.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { compileDeclarations, type LoadedFile } from '../src/config-file/index.js'
import type { MountError } from '../src/core/mount.js'
import { declarationFileError, type Issue } from '../src/config-file/errors.js'

export interface DeclarationFileOptions {
  readonly file: LoadedFile
  /** Where `${NAME}` in the file's upstreams is read from. */
  readonly env: Readonly<Record<string, string | undefined>>
}

async function declarationFile (app: FastifyInstance, options: DeclarationFileOptions): Promise<void> {
  const { file } = options
  const compiled = await compileDeclarations(file, { store: app.store, env: options.env, log: app.log, upstreamObserver: app.metrics.upstream, validators: app.validators })
  const issues: Issue[] = []
  for (const { mount, at } of compiled.mounts) {
    try {
      app.mount(mount)
    } catch (error) {
      // Pointed at the refused value itself when the refusal names one (a sortable field).
      issues.push({ pointer: `${at}${(error as MountError).at ?? ''}`, message: (error as Error).message })
    }
  }
  if (issues.length > 0) {
    await compiled.close()
    throw declarationFileError(file.path, issues, file.locate)
  }
  app.addHook('onClose', compiled.close)
}

export default fp(declarationFile, { name: 'declaration-file', dependencies: ['mount', 'store', 'metrics'] })
