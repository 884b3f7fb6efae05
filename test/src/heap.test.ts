import { spawnSync } from 'node:child_process'
import t from 'tap'
import { boundHeapGrowth, configureHeap, HEAP_GROWING_DEFAULT_PERCENT, turnOffPretenuring } from '../../src/heap.js'
import { codePath, codeUrl, NODE_ARGS } from '../helpers/paths.js'
import { aliveShare, type Young } from '../helpers/young.js'

t.test('a percent sets V8\'s heap growing factor for the process; 0 leaves V8\'s own rule', async (t) => {
  const flags: string[] = []
  const record = (flag: string): void => { flags.push(flag) }
  boundHeapGrowth(HEAP_GROWING_DEFAULT_PERCENT, record)
  boundHeapGrowth(0, record)
  boundHeapGrowth(20, record)
  t.strictSame(flags, ['--heap-growing-percent=100', '--heap-growing-percent=20'])
})

t.test('pretenuring is turned off for the process', async (t) => {
  const flags: string[] = []
  turnOffPretenuring((flag) => { flags.push(flag) })
  t.strictSame(flags, ['--no-allocation-site-pretenuring'])
})

t.test('a serving process gets both: its growth bounded, and no pretenuring', async (t) => {
  const flags: string[] = []
  configureHeap(HEAP_GROWING_DEFAULT_PERCENT, (flag) => { flags.push(flag) })
  t.strictSame(flags, ['--heap-growing-percent=100', '--no-allocation-site-pretenuring'])
})

t.test('the flags are ones this V8 knows: set in a process of its own, they are accepted without a word', async (t) => {
  // V8 writes `Error: unrecognized flag` for a flag it does not know, and goes on.
  const script = `import(${JSON.stringify(codeUrl('src/heap'))}).then(({ configureHeap }) => { configureHeap(50); console.log('set') })`
  const { stdout, stderr, status } = spawnSync(process.execPath, [...NODE_ARGS, '--input-type=module', '-e', script], { encoding: 'utf8' })
  t.equal(status, 0)
  t.equal(stdout, 'set\n')
  t.equal(stderr, '')
})

t.test('a young collection that finds a few pages alive leaves every later row to die young, as the gateway sets V8', async (t) => {
  // The same reads in two processes (test/fixtures/young-rows.ts), one with V8's own rule: there
  // the two collections make V8 make every row in the old generation, and its values are promoted.
  const own = youngRows('v8')
  const gateway = youngRows('gateway')
  for (const [label, young] of [['V8\'s own rule', own], ['the gateway\'s setting', gateway]] as const) {
    t.ok(young.collections >= 20, `${label}: enough young collections to judge (${young.collections})`)
  }
  t.ok(own.alive > 0.3 * own.before, `V8's own rule: ${aliveShare(own)} of the young generation found alive, more than 30 %: the test can tell`)
  t.ok(gateway.alive <= 0.1 * gateway.before, `the gateway's setting: ${aliveShare(gateway)} found alive, at most 10 %`)
})

/** What the fixture's young collections found alive, `gateway` or V8's own rule, its young generation always at its largest (1 MB). */
function youngRows (mode: 'v8' | 'gateway'): Young {
  const { stdout, stderr, status } = spawnSync(process.execPath, [...NODE_ARGS, '--expose-gc', '--min-semi-space-size=1', '--max-semi-space-size=1', codePath('test/fixtures/young-rows'), mode], { encoding: 'utf8' })
  if (status !== 0) throw new Error(`young-rows ${mode} exited with ${String(status)}: ${stderr}`)
  return JSON.parse(stdout) as Young
}
