// A gateway serving a declaration file, built as `npm start` builds one with GATEWAY_CONFIG (the
// declared app), with the demo catalogue set up in its store unless the test says otherwise.
import { readFile } from 'node:fs/promises'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { loadDeclarationFile } from '../../src/config-file/index.js'
import declaredApp from '../../src/declared-app.js'
import type { GatewayOptions } from '../../src/gateway.js'
import { serverOptions } from '../../src/server.js'
import { setUpDemo } from '../../demo/catalogue.js'
import { KEY } from './app.js'

interface Teardown { after: (fn: () => unknown) => void }

export interface DeclaredAppOptions extends Partial<GatewayOptions> {
  /** Where `${NAME}` in the file is read from (default: nothing set). */
  readonly env?: Readonly<Record<string, string>>
  /** Registered after the file's mounts: TypeScript resources beside them. */
  readonly also?: (app: FastifyInstance) => Promise<void>
}

export async function buildDeclaredApp (t: Teardown, path: string, options: DeclaredAppOptions = {}): Promise<FastifyInstance> {
  const { env = {}, also, ...gatewayOptions } = options
  const file = loadDeclarationFile(path, await readFile(path, 'utf8'))
  const app = Fastify({ ...serverOptions('silent'), logger: false })
  t.after(async () => { await app.close() })
  // Unencapsulated, as server.ts registers it: what is registered after reaches `app.mount`.
  await app.register(fp(declaredApp), {
    databaseUrl: ':memory:',
    timeZone: 'UTC',
    apiKeys: [KEY],
    loadShedding: { maxEventLoopDelay: 0 },
    setUp: setUpDemo,
    ...gatewayOptions,
    file,
    env
  })
  if (also !== undefined) await app.register(also)
  await app.ready()
  return app
}
