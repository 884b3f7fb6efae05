// On a machine of two or more CPUs, the load generator (this process) keeps the first and every
// server under test runs on the last, so that neither migrates onto the other's core between
// slices: one source of noise less on a shared machine. Linux's taskset does it; without taskset
// (or on one CPU) processes are left where the scheduler puts them, and the report says so.
import { execFileSync } from 'node:child_process'
import { cpus } from 'node:os'

const TASKSET = 'taskset'
const LOAD_CPU = 0
const SERVER_CPU = cpus().length - 1

const available = cpus().length >= 2 && hasTaskset()

/** Whether processes are pinned in this run. */
export function pinning (): string {
  return available ? `load generator on CPU ${LOAD_CPU}, servers on CPU ${SERVER_CPU}` : 'not pinned (no taskset, or one CPU)'
}

/** Pins this process, every thread it has, to the load generator's CPU. */
export function pinLoadGenerator (): void {
  if (available) execFileSync(TASKSET, ['--all-tasks', '--cpu-list', '--pid', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' })
}

/** `fork` options that start a server on the servers' CPU, threads included from the start. */
export function serverPinning (): { execPath?: string, execArgv?: string[] } {
  return available ? { execPath: TASKSET, execArgv: ['--cpu-list', String(SERVER_CPU), process.execPath, ...process.execArgv] } : {}
}

function hasTaskset (): boolean {
  try {
    execFileSync(TASKSET, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
