// The engine and the demo live apart: the engine's folders (src/, plugins/) import nothing of the
// demo's (demo/, routes/), and the demo is built from the public API (src/index.ts) alone, as a
// user's project would be. The one door between them: `audience-gateway serve` with no file loads
// the demo app when it serves it.
import { readdir, readFile } from 'node:fs/promises'
import { join, relative, resolve, dirname } from 'node:path'
import t from 'tap'
import { ROOT } from '../helpers/paths.js'

/** Every TypeScript file under `folder`, as a path from the repository's root. */
async function sources (folder: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
}

/** What `file` imports of the repository, statically (`from '...'`) and dynamically (`import('...')`), as paths from the root. */
async function imports (file: string): Promise<Array<{ path: string, dynamic: boolean }>> {
  const text = await readFile(join(ROOT, file), 'utf8')
  const found: Array<{ path: string, dynamic: boolean }> = []
  for (const match of text.matchAll(/(?:from |import\(|^import )'(\.[^']+)'/gm)) {
    found.push({ path: relative(ROOT, resolve(ROOT, dirname(file), match[1])), dynamic: match[0].startsWith('import(') })
  }
  return found
}

const DEMO = /^(demo|routes)\//

t.test('the engine imports nothing of the demo; the command loads the demo app only when it serves it', async (t) => {
  const engine = [...await sources('src'), ...await sources('plugins')]
  t.ok(engine.length > 100, 'every engine file is read')
  const crossings: string[] = []
  for (const file of engine) {
    for (const { path, dynamic } of await imports(file)) {
      if (DEMO.test(path)) crossings.push(`${file} -> ${path}${dynamic ? ' (dynamic)' : ''}`)
    }
  }
  t.strictSame(crossings, ['src/cli.ts -> demo/app.js (dynamic)'])
})

t.test('the demo is built from the public API alone', async (t) => {
  const demo = [...await sources('demo'), ...await sources('routes')]
  t.ok(demo.length >= 15, 'every demo file is read')
  const reached: string[] = []
  for (const file of demo) {
    for (const { path } of await imports(file)) {
      if (!DEMO.test(path)) reached.push(`${file} -> ${path}`)
    }
  }
  // The command's own entry is how the demo's two-process run starts the gateway, as a user would.
  t.strictSame(reached.filter((line) => !line.endsWith('-> src/index.js')), [])
})
