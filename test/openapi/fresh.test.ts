// The committed openapi/openapi.json is what the app generates, so a change to a route, a schema
// or a description shows up in review; `npm run openapi` writes it.
import { spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { codePath, NODE_ARGS, ROOT } from '../helpers/paths.js'
import { DOCUMENT_PATH, openApiDocument, renderDocument } from '../../demo/scripts/openapi-document.js'

// Three builds of the app and a child process: more than tap's default 30 s on a busy machine.
t.setTimeout(120_000)

const root = pathToFileURL(ROOT)
const STALE = `${DOCUMENT_PATH} is stale: run \`npm run openapi\` and commit the result.`

t.test('the committed document is the one the app generates', async (t) => {
  const committed = await readFile(new URL(DOCUMENT_PATH, root), 'utf8').catch(() => '(missing)')
  const generated = renderDocument(await openApiDocument())
  // Compared as text first: the file must be byte for byte what the script writes.
  t.ok(committed === generated, STALE)
  t.strictSame(JSON.parse(committed === '(missing)' ? '{}' : committed), JSON.parse(generated), STALE)
})

t.test('it is the document the default start serves: no upstream is mounted, so no products', async (t) => {
  const defaults = loadConfig({})
  t.equal(defaults.upstreamUrl, undefined, 'npm start mounts no upstream')
  t.equal(defaults.declarationFile, undefined, 'nor a declaration file')
  const committed = JSON.parse(await readFile(new URL(DOCUMENT_PATH, root), 'utf8')) as { paths: Record<string, unknown>, tags: Array<{ name: string }> }
  t.notOk(Object.keys(committed.paths).some((path) => path.startsWith('/products')), 'no /products path')
  t.notOk(committed.tags.some((tag) => tag.name === 'products'), 'no products tag')
})

t.test('the document does not depend on the machine', async (t) => {
  const generated = renderDocument(await openApiDocument())
  t.notMatch(generated, ROOT, 'no absolute path')
  t.notMatch(generated, 'openapi-document-key', 'no key')
  t.ok(generated.endsWith('}\n'), 'ends with a newline')
  t.equal(renderDocument(await openApiDocument()), generated, 'two builds agree')
})

t.test('the script writes the document where it is committed, from the working directory', async (t) => {
  const dir = t.testdir()
  const script = codePath('demo/scripts/write-openapi')
  const run = spawnSync(process.execPath, [...NODE_ARGS, script], { cwd: dir, encoding: 'utf8', env: { ...process.env, TZ: 'Pacific/Kiritimati' } })
  t.equal(run.status, 0, run.stderr)
  t.match(run.stdout, `Wrote ${DOCUMENT_PATH}.`)
  const written = await readFile(new URL(DOCUMENT_PATH, `file://${dir}/`), 'utf8')
  t.equal(written, renderDocument(await openApiDocument()), 'what the script wrote is what the app generates, in any machine zone')
})
