// A program run to its end, however it ends: its exit code and what it wrote (execFile rejects on a
// non-zero code, with the same three on its error).
import { execFile, type ExecFileOptions } from 'node:child_process'
import { promisify } from 'node:util'

export interface Exited {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export async function exited (file: string, args: readonly string[], options: ExecFileOptions = {}): Promise<Exited> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, { ...options, encoding: 'utf8' })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const { code, stdout, stderr } = error as Exited
    return { code, stdout, stderr }
  }
}
