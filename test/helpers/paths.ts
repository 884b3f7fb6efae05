// Where a test finds the repository and the code it starts in a process of its own. `npm test` runs
// the suite compiled, from dist/test/ against dist/src/; `npx tap test/x.test.ts` runs one file from
// its source through tsx. Either way a spawned process runs the same code as the test that spawns it.
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const compiled = import.meta.url.endsWith('.js')

/** The repository: its docs, examples and committed documents. */
export const ROOT = fileURLToPath(new URL(compiled ? '../../..' : '../..', import.meta.url))

/** Where the code runs from: dist/ when compiled, the repository when run from source. */
const CODE = fileURLToPath(new URL('../..', import.meta.url))

/** A module of the project's by its path without an extension ('src/cli'), as this test runs it. */
export function codePath (module: string): string {
  return join(CODE, `${module}${compiled ? '.js' : '.ts'}`)
}

/** The same module as a URL, for an `import()` in a child's script. */
export function codeUrl (module: string): string {
  return pathToFileURL(codePath(module)).href
}

/** The flags a spawned Node needs to run such a module: tsx for the source, source maps for the compiled. */
export const NODE_ARGS: readonly string[] = compiled ? ['--enable-source-maps'] : ['--import=tsx']
