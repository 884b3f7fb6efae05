// The app a declaration file describes: the gateway, with the file's info and tags, serving the file's
// mounts. `npm start` serves it when GATEWAY_CONFIG (or its argument) names a file; nothing of the
// demo is set up: the file's sources are the database's own tables.
import type { FastifyInstance } from 'fastify'
import declarationFile from '../plugins/declaration-file.js'
import type { LoadedFile } from './config-file/index.js'
import gateway, { type GatewayOptions } from './gateway.js'

export type DeclaredAppOptions = Omit<GatewayOptions, 'tags' | 'info'> & {
  readonly file: LoadedFile
  /** Where `${NAME}` in the file's upstreams is read from. */
  readonly env: Readonly<Record<string, string | undefined>>
}

export default async function declaredApp (fastify: FastifyInstance, options: DeclaredAppOptions): Promise<void> {
  const { file, env, ...gatewayOptions } = options
  // A file that reads no table (its sources are upstreams) needs no database: it neither opens nor
  // requires the one DATABASE_URL names, and its store is an empty one in memory.
  const readsTables = Object.values(file.declarations.sources).some((source) => 'table' in source)
  await fastify.register(gateway, { ...gatewayOptions, ...(readsTables ? {} : { databaseUrl: ':memory:' }), tags: file.declarations.tags, info: file.declarations.info })
  await fastify.register(declarationFile, { file, env })
}
