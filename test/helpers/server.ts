// The real server process (src/server), as `npm start` runs it, on a free port.
import { spawn, type ChildProcess } from 'node:child_process'
import { EventEmitter, once } from 'node:events'
import { createInterface } from 'node:readline'
import { codePath, NODE_ARGS, ROOT } from './paths.js'

export interface RunningServer {
  readonly url: string
  readonly child: ChildProcess
  /** Every log line so far, parsed. */
  readonly logs: Array<Record<string, unknown>>
  /** Resolves with the exit code once the process ends. */
  readonly exited: Promise<number | null>
  /** Resolves with the first log entry (so far or to come) whose message matches. */
  logged: (message: RegExp) => Promise<Record<string, unknown>>
}

/** Spawns the server (with `args` after it on the command line); resolves once it listens, or rejects with what it printed. */
export async function startServer (env: Record<string, string>, args: readonly string[] = []): Promise<RunningServer> {
  const { child, logs, stderr } = spawnServer(env, args)
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  const entries = new EventEmitter()
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => {
      const entry = parse(line)
      logs.push(entry)
      entries.emit('entry', entry)
      const match = /listening at (http:\/\/\S+)/.exec(String(entry.msg))
      if (match !== null) resolve(match[1])
    })
    exited.then((code) => reject(new Error(`server exited with ${code}: ${stderr.join('')}`)), reject)
  })
  const logged = async (message: RegExp): Promise<Record<string, unknown>> => {
    const matches = (entry: Record<string, unknown>): boolean => message.test(String(entry.msg))
    const found = logs.find(matches)
    if (found !== undefined) return found
    return await new Promise((resolve) => {
      const listen = (entry: Record<string, unknown>): void => {
        if (!matches(entry)) return
        entries.off('entry', listen)
        resolve(entry)
      }
      entries.on('entry', listen)
    })
  }
  return { url, child, logs, exited, logged }
}

/** Runs the server to its end (e.g. with a bad configuration): its exit code and stderr. */
export async function runServer (env: Record<string, string>, args: readonly string[] = []): Promise<{ code: number | null, stderr: string }> {
  const { child, stderr } = spawnServer(env, args)
  const [code] = await once(child, 'exit')
  return { code: code as number | null, stderr: stderr.join('') }
}

function spawnServer (env: Record<string, string>, args: readonly string[]): { child: ChildProcess, logs: Array<Record<string, unknown>>, stderr: string[] } {
  const child = spawn(process.execPath, [...NODE_ARGS, codePath('src/cli'), 'serve', ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const stderr: string[] = []
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
  return { child, logs: [], stderr }
}

function parse (line: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return { msg: line }
  }
}
