// The suite's side of a server under test: fork it, learn its port, read its memory from /proc,
// stop it. One server runs at a time, so the load generator and the server each have a core.
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { serverPinning } from './cpus.js'
import type { ServerKind } from './server.js'

export interface ServerProcess {
  readonly kind: ServerKind
  readonly url: string
  readonly pid: number
  stop: () => Promise<void>
}

export interface Memory {
  /** Resident set size now, in bytes. */
  readonly rss: number
  /** The peak resident set size since the process started or since `resetPeak`, in bytes. */
  readonly peak: number
}

const SERVER = join(import.meta.dirname, 'server.js')
/** /proc counts CPU time in clock ticks: 100 a second on every Linux this runs on, asked anyway. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

/** Starts a server of `kind` in its own process; `env` adds to its environment (BENCH_TIME_ZONE, BENCH_BODIES). */
export async function startServer (kind: ServerKind, databasePath: string, key: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = fork(SERVER, [kind], {
    ...serverPinning(),
    env: { ...process.env, ...env, BENCH_DATABASE: databasePath, BENCH_KEY: key },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const exited = once(child, 'exit')
  const message = await Promise.race([
    once(child, 'message').then(([first]) => first as { port: number }),
    exited.then(([code]) => { throw new Error(`The ${kind} server exited with ${String(code)} before listening.`) })
  ])
  const url = `http://127.0.0.1:${message.port}`
  if (kind === 'gateway') await ready(`${url}/readyz`)
  return { kind, url, pid: child.pid!, stop: () => stop(child, exited) }
}

/** The process's memory, from /proc/<pid>/status (Linux). */
export function memoryOf (pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return { rss: kilobytes(status, 'VmRSS'), peak: kilobytes(status, 'VmHWM') }
}

/** Seconds of CPU the process has used so far, user and system, from /proc/<pid>/stat (Linux). */
export function cpuSecondsOf (pid: number): number {
  // The command name (field 2) may hold spaces; the fields counted from after its ')' do not.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}

/** Resets the peak (VmHWM) to the current RSS, so the next peak belongs to what runs next. */
export function resetPeak (pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

/**
 * Waits for the gateway's readiness probe: its load shedding measures the event loop from start,
 * and the first sample, taken while the app is still compiling routes, sheds for about a second.
 */
export async function ready (url: string): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const status = await fetch(url).then((response) => response.status, () => 0)
    if (status === 200) return
    if (Date.now() > deadline) throw new Error(`${url} still answers ${status} after 30 s.`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function stop (child: ChildProcess, exited: Promise<unknown[]>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

function kilobytes (status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)
  if (match === null) throw new Error(`No ${field} in /proc status.`)
  return Number(match[1]) * 1024
}
