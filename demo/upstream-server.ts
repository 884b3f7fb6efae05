// The demo upstream as a process, for the README demo and the benchmark: configured from
// UPSTREAM_HOST, UPSTREAM_PORT, UPSTREAM_ROWS and UPSTREAM_TOKEN, closed on SIGTERM or SIGINT.
import { demoUpstreamPort, startDemoUpstream } from './upstream.js'

// An empty token would demand the header `Bearer ` alone: it means no token.
const token = process.env.UPSTREAM_TOKEN || undefined
const upstream = await startDemoUpstream({
  rows: wholeNumber('UPSTREAM_ROWS', 1000),
  host: process.env.UPSTREAM_HOST ?? '127.0.0.1',
  port: portOf(process.env.UPSTREAM_PORT),
  token
})
process.stdout.write(`demo upstream listening at ${upstream.url}\n`)
process.once('SIGTERM', close)
process.once('SIGINT', close)

/** Once the listener and its sockets are closed, nothing is left to run and the process ends. */
async function close (): Promise<void> {
  await upstream.close()
}

function portOf (value: string | undefined): number {
  try {
    return demoUpstreamPort(value)
  } catch (error) {
    fail(error as Error)
  }
}

/** The variable `name` as a whole number, `fallback` when unset; anything else stops the process. */
function wholeNumber (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined) return fallback
  if (!/^\d{1,15}$/.test(raw)) fail(new Error(`${name} must be a whole number, not "${raw}".`))
  return Number(raw)
}

function fail (error: Error): never {
  process.stderr.write(`${error.message}\n`)
  process.exit(1)
}
