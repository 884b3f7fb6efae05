// The built server (dist/src/server.js), as `npm start` runs it, in its own process on a free
// loopback port: started, measured (resident memory), stopped.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface LoadServer {
  readonly url: string
  readonly child: ChildProcess
  /** Resident memory now, in bytes (VmRSS). */
  rss: () => number
  /** SIGTERM, then the exit code. */
  stop: () => Promise<number | null>
}

const SERVER = join(import.meta.dirname, '..', '..', 'src', 'cli.js')

export async function startLoadServer (env: Record<string, string>): Promise<LoadServer> {
  const port = await freePort()
  const child = spawn(process.execPath, [SERVER, 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit']
  })
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  const url = `http://127.0.0.1:${port}`
  await ready(url, exited)
  return {
    url,
    child,
    rss: () => residentBytes(child.pid!),
    stop: async () => {
      child.kill('SIGTERM')
      return await exited
    }
  }
}

async function freePort (): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const { port } = probe.address() as AddressInfo
  probe.close()
  await once(probe, 'close')
  return port
}

async function ready (url: string, exited: Promise<number | null>): Promise<void> {
  let gone: number | null | undefined
  exited.then((code) => { gone = code }, () => {})
  for (let tries = 0; tries < 300; tries++) {
    if (gone !== undefined) throw new Error(`the server exited with ${gone} before it answered`)
    const status = await fetch(`${url}/readyz`).then((res) => res.status, () => 0)
    if (status === 200) return
    await sleep(100)
  }
  throw new Error('the server did not become ready in 30 s')
}

function residentBytes (pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (match === null) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) * 1024
}
