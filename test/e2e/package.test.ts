// The package as a user installs it: the tarball `npm pack` makes of what `files` lists, unpacked
// into node_modules of an empty directory (its dependencies linked from this checkout's, so nothing
// is downloaded), then used both ways in: the `audience-gateway` command, and the typed library
// compiled by a consumer TypeScript project (nodenext, strict). The tarball is packed from the
// suite's own build (`--ignore-scripts`: `prepack` would build again what the suite has just built).
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import t from 'tap'
import { EXIT } from '../../src/cli.js'
import { exited, type Exited } from '../helpers/exited.js'
import { ROOT } from '../helpers/paths.js'

// Packing, a served process and a TypeScript compile of the consumer: seconds each on a quiet
// machine, far more on a busy one. Nothing here waits on a clock; this only bounds a hang.
t.setTimeout(240_000)

const run = promisify(execFile)
const KEY = 'package-test-key-0123456789'

/** The tarball's files, the directory it is installed in, and the package there. */
async function installed (): Promise<{ files: string[], home: string, cli: string }> {
  const home = await mkdtemp(join(tmpdir(), 'gateway-package-'))
  t.teardown(async () => { await rm(home, { recursive: true, force: true }) })
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', home], { cwd: ROOT })
  const [{ filename, files }] = JSON.parse(stdout) as Array<{ filename: string, files: Array<{ path: string }> }>
  const modules = join(home, 'node_modules')
  const unpacked = join(modules, 'audience-gateway')
  await mkdir(unpacked, { recursive: true })
  await run('tar', ['xzf', join(home, filename), '-C', unpacked, '--strip-components=1'])
  // Every dependency from this checkout's node_modules, as npm would have installed them beside it.
  for (const entry of await readdir(join(ROOT, 'node_modules'))) {
    if (entry.startsWith('.') || entry === 'audience-gateway') continue
    await symlink(join(ROOT, 'node_modules', entry), join(modules, entry))
  }
  return { files: files.map((file) => file.path), home, cli: join(unpacked, 'dist/src/cli.js') }
}

const { files, home, cli } = await installed()

t.test('the tarball holds what runs, and no tests, fixtures, benchmarks or source maps', async (t) => {
  const pkg = JSON.parse(await readFile(join(home, 'node_modules/audience-gateway/package.json'), 'utf8'))
  t.strictSame(pkg.bin, { 'audience-gateway': 'dist/src/cli.js' }, 'the command')
  t.notOk('private' in pkg, 'installable')
  for (const path of ['dist/src/cli.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/plugins/mount.d.ts', 'dist/demo/app.js', 'dist/routes/books/index.js', 'dist/package.json', 'schema/gateway.schema.json', 'README.md']) {
    t.ok(files.includes(path), `ships ${path}`)
  }
  t.strictSame(files.filter((path) => /(^|\/)(test|fixtures|bench|load|dashboard)\/|\.map$|\.ts$/.test(path) && !path.endsWith('.d.ts')), [], 'nothing of the suite')
  t.match(await readFile(join(home, 'node_modules/audience-gateway', pkg.bin['audience-gateway']), 'utf8'), /^#!\/usr\/bin\/env node\n/, 'the command runs as a program')
  t.strictSame(Object.keys(pkg.exports['.']), ['types', 'default'], 'the library entry names only its conditions')
  const resolve = createRequire(join(home, 'index.js')).resolve
  t.equal(resolve('audience-gateway/gateway.schema.json'), join(home, 'node_modules/audience-gateway/schema/gateway.schema.json'), 'the schema is importable as the docs say')
})

t.test('the installed command: help, check (good and bad), the document, and a file served', async (t) => {
  const databaseUrl = join(home, 'tasks.sqlite')
  const db = new Database(databaseUrl)
  db.exec("create table tasks (id integer primary key, title text not null, owner_id integer not null); insert into tasks values (1, 'Water the plants', 7), (2, 'Write the report', 7)")
  db.close()
  const file = join(home, 'my.gateway.json')
  await cp(join(ROOT, 'test/fixtures/cli/tasks.gateway.json'), file)
  const env = { ...process.env, DATABASE_URL: databaseUrl, TIME_ZONE: 'UTC', API_KEYS: KEY }
  const command = async (...argv: string[]): Promise<Exited> => await exited(process.execPath, [cli, ...argv], { cwd: home, env })
  t.match(await command('--help'), { code: EXIT.ok, stdout: /^Usage: audience-gateway <command>/ })
  t.match(await command('check', file), { code: EXIT.ok, stdout: `${file}: valid: 1 record, 1 source, 2 mounts\n` })
  await writeFile(join(home, 'bad.gateway.json'), '{ "records": {}, "sources": {}, "mounts": [{ "kind": "list" }] }\n')
  t.match(await command('check', join(home, 'bad.gateway.json')), { code: EXIT.invalid, stderr: /^Invalid declaration file \(\d+ problems\):\n.*bad\.gateway\.json:1:\d+: \/mounts\/0: must have "name"/m })
  t.match(await command('deploy'), { code: EXIT.usage })
  const document = await command('openapi', file)
  t.equal(document.code, EXIT.ok)
  t.match(JSON.parse(document.stdout), { openapi: '3.1.0', info: { title: 'Tasks' }, paths: { '/tasks': {} } })

  const server = spawn(process.execPath, [cli, 'serve', file], { cwd: home, env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => { server.kill('SIGKILL') })
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: server.stdout }).on('line', (line) => {
      const listening = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
      if (listening !== null) resolve(listening[1])
    })
    server.once('exit', (code) => { reject(new Error(`the server exited (${String(code)}) before listening`)) })
  })
  t.strictSame(await (await fetch(`${url}/tasks/2`, { headers: { authorization: `Bearer ${KEY}` } })).json(), { id: 2, title: 'Write the report', owner: 7 })
  t.match(await (await fetch(`${url}/tasks`, { headers: { 'x-audience': 'agent' } })).json(), { items: [{ id: 1, title: 'Water the plants' }, { id: 2 }], total_tasks: 2, has_more: false })
  const stopped = once(server, 'exit')
  server.kill('SIGTERM')
  t.strictSame((await stopped)[0], 0, 'stopped cleanly on SIGTERM')
})

t.test('the typed library: a consumer project compiles against the package, and a wrong one does not', async (t) => {
  const project = join(home, 'consumer')
  await cp(join(ROOT, 'test/fixtures/consumer'), project, { recursive: true })
  await writeFile(join(project, 'package.json'), '{ "type": "module" }\n')
  const compiled = (await exited(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: project })).stdout
  const errors = compiled.split('\n').filter((line) => line !== '')
  t.strictSame(errors.filter((line) => !line.startsWith('wrong.ts')), [], 'the project of a user\'s own compiles: app.mount, app.store, its tables')
  t.match(errors, [/^wrong\.ts\(\d+,\d+\): error TS2345: Argument of type '"no_such_table"' is not assignable/], 'a table it never declared is a type error')
})
