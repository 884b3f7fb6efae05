// `npm run demo:upstream`: the demo upstream and the gateway reading it, in one command. The
// upstream listens on 127.0.0.1:4010 (UPSTREAM_PORT), the gateway is `npm start`'s own server with
// UPSTREAM_URL pointed at it; once both answer, one plain and one agent call through the gateway are
// shown. Both keep serving until Ctrl-C (or SIGTERM), which stops both.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { extname } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { demoUpstreamPort, startDemoUpstream } from './upstream.js'

let port: number
try {
  port = demoUpstreamPort(process.env.UPSTREAM_PORT)
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(1)
}
const upstream = await startDemoUpstream({ port })
process.stdout.write(`demo upstream listening at ${upstream.url}\n`)

// The gateway as `npm start` runs it (`audience-gateway serve`: src/cli.js beside this directory, or src/cli.ts in tests),
// in a process group of its own: a terminal's Ctrl-C reaches it once, from here, not twice.
const command = fileURLToPath(new URL(`../src/cli${extname(fileURLToPath(import.meta.url))}`, import.meta.url))
const gateway = spawn(process.execPath, [...process.execArgv, command, 'serve'], { env: { ...process.env, UPSTREAM_URL: upstream.url }, stdio: ['ignore', 'pipe', 'inherit'], detached: true })
const stopped = once(gateway, 'exit')
const stop = (): void => { gateway.kill('SIGTERM') }
process.once('SIGINT', stop)
process.once('SIGTERM', stop)

const url = await new Promise<string | undefined>((resolve, reject) => {
  const lines = createInterface({ input: gateway.stdout })
  lines.on('line', (line) => {
    process.stdout.write(`${line}\n`)
    const listening = /listening at (http:\/\/[^\s"]+)/.exec(line)
    if (listening !== null) resolve(listening[1])
  })
  stopped.then(() => { resolve(undefined) }, reject)
})
if (url !== undefined) await show(url)
// A gateway that ended on its own (killed, or failed to start) ends the demo as a failure.
const [code] = await stopped as [number | null]
await upstream.close()
process.exitCode = code ?? 1

/** One plain call and one agent call of the products, as curl would show them. */
async function show (gatewayUrl: string): Promise<void> {
  const plain = await fetch(`${gatewayUrl}/products`)
  const products = await plain.json() as unknown[]
  const agent = await fetch(`${gatewayUrl}/products?limit=2`, { headers: { 'x-audience': 'agent' } })
  process.stdout.write([
    '',
    `$ curl ${gatewayUrl}/products          # a plain client: every product, every field`,
    `${plain.status}: ${products.length} products; the first: ${JSON.stringify(products[0])}`,
    '',
    `$ curl -H 'X-Audience: agent' '${gatewayUrl}/products?limit=2'`,
    `${agent.status}: ${JSON.stringify(await agent.json(), null, 2)}`,
    '',
    'Both keep serving; Ctrl-C stops them.',
    ''
  ].join('\n'))
}
