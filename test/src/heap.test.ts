import { spawnSync } from 'node:child_process'
import t from 'tap'
import { boundHeapGrowth, HEAP_GROWING_DEFAULT_PERCENT } from '../../src/heap.js'
import { codeUrl, NODE_ARGS } from '../helpers/paths.js'

t.test('a percent sets V8\'s heap growing factor for the process; 0 leaves V8\'s own rule', async (t) => {
  const flags: string[] = []
  const record = (flag: string): void => { flags.push(flag) }
  boundHeapGrowth(HEAP_GROWING_DEFAULT_PERCENT, record)
  boundHeapGrowth(0, record)
  boundHeapGrowth(20, record)
  t.strictSame(flags, ['--heap-growing-percent=100', '--heap-growing-percent=20'])
})

t.test('the flag is one this V8 knows: set in a process of its own, it is accepted without a word', async (t) => {
  // V8 writes `Error: unrecognized flag` for a flag it does not know, and goes on.
  const script = `import(${JSON.stringify(codeUrl('src/heap'))}).then(({ boundHeapGrowth }) => { boundHeapGrowth(50); console.log('set') })`
  const { stdout, stderr, status } = spawnSync(process.execPath, [...NODE_ARGS, '--input-type=module', '-e', script], { encoding: 'utf8' })
  t.equal(status, 0)
  t.equal(stdout, 'set\n')
  t.equal(stderr, '')
})
