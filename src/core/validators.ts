// The JSON Schema checks an app compiles: its calls' arguments (arguments.ts) and the rows its
// upstreams answer (sources/upstream/rows.ts). Ajv keeps every schema it compiles for as long as it
// lives, so each app has instances of its own, made when it registers (plugins/mount.ts) and handed
// to what compiles: they go with the app, and a declaration reloaded leaves nothing of the last.
import type { Ajv } from 'ajv'
import { rowsAjv, type CompileRows } from '../sources/upstream/rows.js'
import { argumentsAjv, type CompileArguments } from './arguments.js'

export interface Validators {
  /** Compiles the check of one part of a call's arguments (its query, its path parameters). */
  readonly arguments: CompileArguments
  /** Compiles the check of an upstream's row against its declared record. */
  readonly rows: CompileRows
  /** Compiles the check of an action's body, as JSON sends it (nothing coerced). */
  readonly bodies: CompileArguments
}

/** A set of checks of its own; each Ajv is made when it first compiles (an app without upstreams makes none for rows). */
export function validators (): Validators {
  let args: Ajv | undefined
  let rows: Ajv | undefined
  let bodies: Ajv | undefined
  return {
    arguments: (schema) => (args ??= argumentsAjv()).compile(schema),
    rows: (schema) => (rows ??= rowsAjv()).compile(schema),
    bodies: (schema) => (bodies ??= argumentsAjv(false)).compile(schema)
  }
}
