// What every command of `audience-gateway` shares: its exit codes, and where it writes and reads.
// Apart from the command itself, so a command written in a module of its own (init) uses the same.

export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const

/** Where the command writes, and what it reads: the process's own, or a test's. */
export interface Io {
  readonly stdout: { write: (text: string) => unknown }
  readonly stderr: { write: (text: string) => unknown }
  readonly env: Readonly<Record<string, string | undefined>>
}

/** `count` of `noun`, plural past one: `1 record`, `2 records`. */
export function plural (count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
