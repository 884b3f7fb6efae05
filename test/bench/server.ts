// One server under test in its own process (forked by the suite): argv[2] names it, BENCH_DATABASE
// and BENCH_KEY configure it. It listens on loopback and tells the parent its port over IPC.
import type { FastifyInstance } from 'fastify'
import { MEBIBYTE } from '../../src/config.js'
import { configureHeap, HEAP_GROWING_DEFAULT_PERCENT } from '../../src/heap.js'
import { gatewayServer } from './servers/gateway.js'
import { gatewayCoreServer } from './servers/gateway-core.js'
import { handExpressServer } from './servers/hand-express.js'
import { handFastifyServer } from './servers/hand-fastify.js'
import { handSpeedServer } from './servers/hand-speed.js'
import { limitServer } from './servers/limit.js'
import type { ServerOptions } from './servers/options.js'

export const SERVER_KINDS = ['gateway', 'gateway-core', 'fastify', 'express', 'speed', 'limit'] as const
export type ServerKind = typeof SERVER_KINDS[number]

interface Running {
  port: number
  close: () => Promise<void>
}

async function main (): Promise<void> {
  const kind = process.argv[2] as ServerKind
  const cache = process.env.RESPONSE_CACHE_MB
  const options: ServerOptions = { databasePath: required('BENCH_DATABASE'), key: required('BENCH_KEY'), timeZone: process.env.BENCH_TIME_ZONE ?? 'UTC', ...(cache === undefined ? {} : { responseCacheBytes: Number(cache) * MEBIBYTE }) }
  // The gateway as it ships: its process sets V8 as src/server.ts does.
  if (kind === 'gateway' || kind === 'gateway-core') configureHeap(Number(process.env.HEAP_GROWING_PERCENT ?? HEAP_GROWING_DEFAULT_PERCENT))
  const running = await start(kind, options)
  process.once('SIGTERM', () => { running.close().finally(() => process.exit(0)) })
  process.send!({ port: running.port })
}

async function start (kind: ServerKind, options: ServerOptions): Promise<Running> {
  if (kind === 'express') {
    const server = handExpressServer(options)
    return { port: await server.listen(), close: server.close }
  }
  const server = await fastifyServer(kind, options)
  await server.listen({ port: 0, host: '127.0.0.1' })
  return { port: (server.server.address() as { port: number }).port, close: () => server.close() }
}

async function fastifyServer (kind: Exclude<ServerKind, 'express'>, options: ServerOptions): Promise<FastifyInstance> {
  switch (kind) {
    case 'gateway': return await gatewayServer(options)
    case 'gateway-core': return await gatewayCoreServer(options)
    case 'fastify': return await handFastifyServer(options)
    case 'speed': return await handSpeedServer(options)
    case 'limit': return await limitServer(required('BENCH_BODIES'))
  }
}

function required (name: string): string {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} must be set.`)
  return value
}

await main()
