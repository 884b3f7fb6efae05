// `npm run demo:upstream` as a process: the upstream and the gateway reading it started together,
// one plain and one agent call shown, both stopped by one SIGTERM; a bad port stops it at once.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import t from 'tap'
import { codePath, NODE_ARGS, ROOT } from '../helpers/paths.js'

const ENTRY = codePath('demo/with-upstream')

// Two processes each: slow on a busy machine, and nothing here waits on a clock.
t.setTimeout(300_000)

t.test('starts both, shows a plain and an agent call, and stops both on SIGTERM', async (t) => {
  const child = spawn(process.execPath, [...NODE_ARGS, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, UPSTREAM_PORT: '0', PORT: '0', API_KEYS: 'demo-key-0123456789abcdef', DATABASE_URL: join(t.testdir(), 'catalogue.sqlite'), SHUTDOWN_DRAIN_SECONDS: '0' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  const exited = once(child, 'exit')
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('Both keep serving')) resolve()
    })
    exited.then(([code]) => { reject(new Error(`exited with ${String(code)}: ${output}`)) }, reject)
  })
  t.match(output, /^demo upstream listening at http:\/\/127\.0\.0\.1:\d+\n/)
  t.match(output, /\n200: 1000 products; the first: \{"sku":"SKU-00001",/)
  t.match(output, /"price": "EUR \d+\.\d\d"/, 'the agent call, projected')
  t.match(output, /"next_offset": 2/)
  child.kill('SIGTERM')
  t.strictSame(await exited, [0, null])
})

t.test('a gateway that dies ends the demo as a failure, and the upstream with it', async (t) => {
  const child = spawn(process.execPath, [...NODE_ARGS, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, UPSTREAM_PORT: '0', PORT: '0', API_KEYS: 'demo-key-0123456789abcdef', DATABASE_URL: join(t.testdir(), 'catalogue.sqlite') },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  const exited = once(child, 'exit')
  // The gateway's pid is in its log lines; it is killed once the demo's calls are shown.
  const pid = await new Promise<number>((resolve) => {
    let gateway = 0
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) gateway = (JSON.parse(line) as { pid: number }).pid
      if (line.startsWith('Both keep serving')) resolve(gateway)
    })
  })
  process.kill(pid, 'SIGKILL')
  t.strictSame(await exited, [1, null])
})

t.test('a gateway that cannot start ends the demo as a failure, saying why', async (t) => {
  const child = spawn(process.execPath, [...NODE_ARGS, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, UPSTREAM_PORT: '0', PORT: 'http' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.strictSame(await once(child, 'exit'), [1, null])
  t.match(stderr, /PORT must be a port number/)
})

t.test('a port that is not one stops it with one line', async (t) => {
  const child = spawn(process.execPath, [...NODE_ARGS, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, UPSTREAM_PORT: 'x' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.strictSame(await once(child, 'exit'), [1, null])
  t.equal(stderr, 'UPSTREAM_PORT must be a port number, not "x".\n')
})
