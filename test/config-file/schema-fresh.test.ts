// The committed schema/gateway.schema.json is the schema the gateway checks files against, so
// editors complete and check what the gateway accepts; `npm run schema` writes it.
import { spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { Ajv } from 'ajv'
import t from 'tap'
import { codePath, NODE_ARGS, ROOT } from '../helpers/paths.js'
import { renderSchema, SCHEMA_PATH } from '../../src/scripts/declaration-schema.js'

const root = pathToFileURL(ROOT)

t.test('the committed schema is the one the gateway checks files against', async (t) => {
  const committed = await readFile(new URL(SCHEMA_PATH, root), 'utf8').catch(() => '(missing)')
  t.ok(committed === renderSchema(), `${SCHEMA_PATH} is stale: run \`npm run schema\` and commit the result.`)
})

t.test('it is a draft-07 schema an editor can read, and the example files satisfy it', async (t) => {
  const schema = JSON.parse(renderSchema())
  t.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#')
  const ajv = new Ajv({ strict: false, discriminator: true })
  const validate = ajv.compile(schema)
  for (const example of ['examples/demo.gateway.json', 'examples/products.gateway.json']) {
    t.ok(validate(JSON.parse(await readFile(new URL(example, root), 'utf8'))), example)
  }
  t.notOk(validate({ records: {}, sources: {}, mounts: [{ kind: 'list' }] }), 'and refuses a mount without its keys')
})

t.test('the script writes the schema where it is committed, from the working directory', async (t) => {
  const dir = t.testdir()
  const script = codePath('src/scripts/write-declaration-schema')
  const run = spawnSync(process.execPath, [...NODE_ARGS, script], { cwd: dir, encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
  t.match(run.stdout, `Wrote ${SCHEMA_PATH}.`)
  t.equal(await readFile(new URL(SCHEMA_PATH, `file://${dir}/`), 'utf8'), renderSchema())
})
