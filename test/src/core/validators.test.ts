// The checks an app compiles are its own: two apps never share an Ajv, so what one compiled goes
// with it; a declaration compiled again and again, as reloads do, leaves the heap where it was.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import Type from 'typebox'
import { validators } from '../../../src/core/validators.js'
import { codeUrl, NODE_ARGS } from '../../helpers/paths.js'

t.test('a set compiles on Ajv instances of its own: one schema compiled twice by a set is one check, by two sets two', async (t) => {
  const schema = Type.Object({ n: Type.Integer() })
  const [one, other] = [validators(), validators()]
  t.equal(one.arguments(schema), one.arguments(schema), 'Ajv keeps what it compiled: the same check again')
  t.not(other.arguments(schema), one.arguments(schema), 'another set compiles its own')
  t.not(other.rows(schema), one.rows(schema))
  t.not(one.rows(schema), one.arguments(schema), 'rows and arguments are checked apart')
  const coerced = { n: '42' }
  t.ok(one.arguments(schema)(coerced), 'an argument\'s digits are a number')
  t.strictSame(coerced, { n: 42 })
  t.notOk(one.rows(schema)({ n: '42' }), 'a row\'s are not')
})

/** Apps compiled, the first WARM of them before the heap is first read: V8's own warm-up is not a leak. */
const APPS = 50
const WARM = 10
/** Upstream records of 15 fields, each served as a list and a record: 9 argument checks and 6 row checks an app. */
const RECORDS = 3
/**
 * How much the heap may grow over the last 40 apps. Each app's checks take about 150 KiB (measured
 * on 3 December with the checks on module-level Ajv instances: the heap grew by 6.0 MiB over those
 * 40 apps, and by 11.6 MiB with 6 records); with the checks the app's own it grows by 0.3 to 0.5 MiB,
 * the type feedback and deoptimization data V8 keeps for the functions it optimizes as they get
 * hot, which levels off. 2 MiB is four times that, and a third of what 40 apps' checks kept weigh.
 */
const BOUND = 2 * 1024 * 1024

t.test(`${APPS} apps compiled from one declaration and dropped: the heap stays where it was`, async (t) => {
  const script = `import(${JSON.stringify(codeUrl('test/fixtures/reloads'))}).then(async ({ reloads }) => { console.log(JSON.stringify(await reloads(${APPS}, ${WARM}, ${RECORDS}))) })`
  // Without coverage: V8's precise coverage keeps a count for every function, and runs several times slower.
  const { NODE_V8_COVERAGE: _coverage, ...env } = process.env
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [...NODE_ARGS, '--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', env })
  t.equal(stderr, '')
  const { warm, end } = JSON.parse(stdout) as { warm: number, end: number }
  const grown = end - warm
  t.ok(grown < BOUND, `grew by ${(grown / 1024).toFixed(0)} KiB over ${APPS - WARM} apps (at most ${BOUND / 1024} KiB)`)
})
