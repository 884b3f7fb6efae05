// The `audience-gateway` command: its usage, help and exit codes, `check` and `openapi` on a user's
// file over their own SQLite database (in process: a process adds nothing there), and `mcp --stdio`
// spawned as a desktop client spawns it, driven by the official SDK's stdio client.
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import Database from 'better-sqlite3'
import t, { type Test } from 'tap'
import { EXIT, run, STDIO_KEY_VARIABLE } from '../../src/cli.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'
import { exited } from '../helpers/exited.js'
import { codePath, NODE_ARGS, ROOT } from '../helpers/paths.js'

// The stdio server and the command run as processes: seconds on a quiet machine, far more on a busy
// one. Nothing here waits on a clock; this only bounds a hang.
t.setTimeout(240_000)

const FILE = join(ROOT, 'test/fixtures/cli/tasks.gateway.json')
const KEY = 'cli-test-key-0123456789'
const TITLES = ['Water the plants', 'Write the report', 'Call the bank', 'Book the train', 'Pay the rent']

/** A user's own SQLite database holding the tasks table the file reads. */
async function tasksDatabase (t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-cli-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const path = join(dir, 'tasks.sqlite')
  const db = new Database(path)
  db.exec('create table tasks (id integer primary key, title text not null, owner_id integer not null)')
  const insert = db.prepare('insert into tasks (id, title, owner_id) values (?, ?, ?)')
  TITLES.forEach((title, index) => insert.run(index + 1, title, 7))
  db.close()
  return path
}

/** The command run in process, with what it wrote. */
async function command (argv: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | undefined, stdout: string, stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await run(argv, { stdout: { write: (text: string) => { stdout += text } }, stderr: { write: (text: string) => { stderr += text } }, env: { TIME_ZONE: 'UTC', ...env } })
  return { code, stdout, stderr }
}

t.test('usage: the commands, their help, and exit code 2 for what it cannot read', async (t) => {
  const bare = await command([])
  t.equal(bare.code, EXIT.usage, 'no command: usage, on stderr')
  t.match(bare.stderr, /^Usage: audience-gateway <command>[\s\S]*serve \[FILE\][\s\S]*check FILE \[--json\][\s\S]*openapi FILE[\s\S]*mcp --stdio FILE[\s\S]*init --from-openapi FILE\|URL[\s\S]*Exit codes: 0 ok, 1 invalid input/)
  t.equal(bare.stdout, '')
  const help = await command(['--help'])
  t.equal(help.code, EXIT.ok)
  t.equal(help.stdout, bare.stderr, 'asked for: the same text, on stdout')
  t.match((await command(['--version'])).stdout, /^\d+\.\d+\.\d+\n$/)
  for (const name of ['serve', 'check', 'openapi', 'mcp', 'init']) {
    const asked = await command([name, '--help'])
    t.equal(asked.code, EXIT.ok, `${name} --help`)
    t.match(asked.stdout, new RegExp(`^Usage: audience-gateway ${name}`), `${name} --help says its usage`)
  }
  const refusals: Array<[readonly string[], RegExp]> = [
    [['deploy'], /^Unknown command "deploy": the commands are serve, check, openapi, mcp, init\.\n/],
    [['check'], /^check: FILE is missing\.\nUsage: audience-gateway check FILE \[--json\]/],
    [['check', 'a.json', 'b.json'], /^check: one FILE at most; got 2 arguments\./],
    [['check', '--yaml', 'a.json'], /^check: Unknown option '--yaml'/],
    [['mcp', FILE], /^mcp: --stdio is required/],
    [['x'.repeat(500)], /^Unknown command "x{40}": /]
  ]
  for (const [argv, said] of refusals) {
    const refused = await command(argv)
    t.equal(refused.code, EXIT.usage, argv.join(' ').slice(0, 40))
    t.match(refused.stderr, said)
    t.equal(refused.stdout, '')
  }
})

t.test('check: a good file is one line of what it declares; --json says the same to a machine', async (t) => {
  const env = { DATABASE_URL: await tasksDatabase(t) }
  const good = await command(['check', FILE], env)
  t.equal(good.code, EXIT.ok)
  t.equal(good.stdout, `${FILE}: valid: 1 record, 1 source, 2 mounts\n`)
  t.equal(good.stderr, '')
  const json = await command(['check', '--json', FILE], env)
  t.equal(json.code, EXIT.ok)
  t.strictSame(JSON.parse(json.stdout), { file: FILE, valid: true, records: 1, sources: 1, mounts: 2 })
})

t.test('check: every problem on a line of its own, as the start says them, and exit 1', async (t) => {
  // The same file over a database without its table: each source that reads it is pointed at.
  const empty = { DATABASE_URL: join(await mkdtemp(join(tmpdir(), 'gateway-cli-empty-')), 'empty.sqlite') }
  t.teardown(async () => { await rm(join(empty.DATABASE_URL, '..'), { recursive: true, force: true }) })
  new Database(empty.DATABASE_URL).close()
  const missing = await command(['check', FILE], empty)
  t.equal(missing.code, EXIT.invalid)
  t.equal(missing.stderr, `Invalid declaration file (1 problem):\n${FILE}:14:16: /sources/tasks/table: the database has no table or view "tasks"; it has: none\n`)
  t.equal(missing.stdout, '')
  const json = await command(['check', FILE, '--json'], empty)
  t.equal(json.code, EXIT.invalid)
  t.strictSame(JSON.parse(json.stdout), { file: FILE, valid: false, problems: [`${FILE}:14:16: /sources/tasks/table: the database has no table or view "tasks"; it has: none`] })
  const schema = await command(['check', join(ROOT, 'test/fixtures/cli/missing.gateway.json')])
  t.equal(schema.code, EXIT.invalid)
  t.match(schema.stderr, /^Invalid declaration file \(1 problem\):\n.*missing\.gateway\.json cannot be read \(ENOENT\)\.\n$/)
  const dir = await mkdtemp(join(tmpdir(), 'gateway-cli-file-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  await writeFile(join(dir, 'two.json'), '{ "records": {} }\n')
  const two = await command(['check', join(dir, 'two.json')])
  t.equal(two.code, EXIT.invalid)
  t.equal(two.stderr, `Invalid declaration file (2 problems):\n${dir}/two.json:1:1: /: must have "sources"\n${dir}/two.json:1:1: /: must have "mounts"\n`)
  const setting = await command(['check', FILE], { TIME_ZONE: 'Mars/Olympus' })
  t.equal(setting.code, EXIT.invalid)
  t.match(setting.stderr, /^Invalid configuration: TIME_ZONE /, 'a bad setting is said as the start says it')
})

t.test('check: the problems of every stage at once, the schema\'s, the records\', the database\'s and the core\'s, each located', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-cli-stages-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const task = { id: { type: 'integer', handle: true }, title: { type: 'string', label: true } }
  const list = { kind: 'list', name: 'listTasks', url: '/tasks', summary: 'Tasks', record: 'Task', source: 'tasks', permissions: ['unrestricted'] }
  const file = join(dir, 'stages.json')
  await writeFile(file, JSON.stringify({
    records: {
      Task: { fields: task },
      Chore: { fields: { ...task, owner: { type: 'string', label: true } } },
      Broken: { fields: { id: { type: 'roman' } } }
    },
    sources: { tasks: { table: 'tasks', orderBy: 'id' }, chores: { table: 'chores', orderBy: 'id' } },
    mounts: [
      { ...list, colour: 'blue' },
      { ...list, name: 'listBroken', url: '/broken', record: 'Broken' },
      { ...list, name: 'listChores', url: '/chores', record: 'Task', source: 'chores' },
      { ...list, name: 'pageTasks', url: '/pages', paging: { style: 'page' } },
      { ...list, name: 'offsetTasks', url: '/offsets', paging: { style: 'offset', unit: 'tasks' } }
    ]
  }, null, 2))
  const checked = await command(['check', '--json', file], { DATABASE_URL: await tasksDatabase(t) })
  t.equal(checked.code, EXIT.invalid)
  const { problems } = JSON.parse(checked.stdout) as { problems: string[] }
  t.match(problems, [
    new RegExp(`^${file}:\\d+:\\d+: /records/Chore: Record 'Chore': a record has one label, but "title" and "owner" are both marked as the label\\.$`),
    new RegExp(`^${file}:\\d+:\\d+: /records/Broken/fields/id/type: must be one of .*; got "roman"$`),
    new RegExp(`^${file}:\\d+:\\d+: /sources/chores/table: the database has no table or view "chores"; it has: tasks$`),
    new RegExp(`^${file}:\\d+:\\d+: /mounts/0/colour: is not a key of this object`),
    new RegExp(`^${file}:\\d+:\\d+: /mounts/4: .*publishes a schema named 'TaskPage' that differs .*schemaName`)
  ], 'the schema\'s, a record\'s, the database\'s and a mount the core refuses, in the order of the file')
  t.equal(problems.length, 5, 'and nothing said of the mount naming the refused record Broken')
  const lines = problems.map((line) => Number(/:(\d+):\d+: /.exec(line)?.[1]))
  t.strictSame(lines, [...lines].sort((a, b) => a - b), 'sorted by line')
})

t.test('a SQLite DATABASE_URL naming no file is refused by check, openapi and mcp --stdio, and none creates it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-cli-missing-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const missing = join(dir, 'typo', 'taks.sqlite')
  const said = `Cannot start: DATABASE_URL names no SQLite file: ${missing} does not exist. Set DATABASE_URL to the SQLite file holding the tables the declaration file reads: none is created for it, as a new one would hold none of them.\n`
  for (const argv of [['check', FILE], ['openapi', FILE], ['mcp', '--stdio', FILE]]) {
    const refused = await command(argv, { DATABASE_URL: missing, LOG_LEVEL: 'silent' })
    t.equal(refused.code, EXIT.invalid, argv[0])
    t.equal(refused.stderr, said, `${argv[0]}: one line naming the path and how to create one`)
    t.equal(refused.stdout, '')
  }
  const json = await command(['check', '--json', FILE], { DATABASE_URL: missing })
  t.strictSame(JSON.parse(json.stdout), { file: FILE, valid: false, problems: [said.trimEnd()] })
  t.notOk(existsSync(join(dir, 'typo')), 'neither the file nor its directory was made')
})

t.test('openapi: the document serving the file publishes, title and licence included', async (t) => {
  const databaseUrl = await tasksDatabase(t)
  const printed = await command(['openapi', FILE], { DATABASE_URL: databaseUrl })
  t.equal(printed.code, EXIT.ok)
  const served = await buildDeclaredApp(t, FILE, { databaseUrl, setUp: async () => {} })
  t.strictSame(JSON.parse(printed.stdout), (await served.inject('/openapi.json')).json(), 'the very document /openapi.json serves')
  t.match(JSON.parse(printed.stdout), { info: { title: 'Tasks', version: '1.0.0' }, paths: { '/tasks': {}, '/tasks/{id}': {} } })
  const refused = await command(['openapi', FILE], { DATABASE_URL: ':memory:' })
  t.equal(refused.code, EXIT.invalid)
  t.equal(refused.stdout, '', 'no document for a file that would not start')
})

t.test('mcp --stdio: a desktop client spawns it, lists the tools, walks a list, calls each', async (t) => {
  const databaseUrl = await tasksDatabase(t)
  /** The SDK's stdio client, spawning the command as a desktop client does. */
  const connect = async (env: Record<string, string>): Promise<{ client: Client, stderr: () => string }> => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...NODE_ARGS, codePath('src/cli'), 'mcp', '--stdio', FILE],
      // Coverage is collected from the child too, when the suite runs under c8.
      env: { PATH: process.env.PATH ?? '', ...(process.env.NODE_V8_COVERAGE === undefined ? {} : { NODE_V8_COVERAGE: process.env.NODE_V8_COVERAGE }), DATABASE_URL: databaseUrl, TIME_ZONE: 'UTC', API_KEYS: `${KEY},other-key-0123456789:admin`, ...env },
      stderr: 'pipe'
    })
    let logged = ''
    transport.stderr?.on('data', (chunk: Buffer) => { logged += chunk.toString() })
    const client = new Client({ name: 'desktop', version: '1.0.0' })
    await client.connect(transport)
    t.teardown(async () => {
      // The server ends on its own once its stdin closes, as when a desktop client quits: waited for
      // here, however long a busy machine takes, since the SDK's close() kills a child still running
      // 2 s after (and its coverage, written as it exits, with it).
      const child = (transport as unknown as { _process?: ChildProcess })._process
      if (child !== undefined && child.exitCode === null) {
        const closed = once(child, 'close')
        child.stdin?.end()
        await closed
      }
      await client.close()
    })
    return { client, stderr: () => logged }
  }

  const anonymous = await connect({})
  t.strictSame((await anonymous.client.listTools()).tools.map((tool) => tool.name), ['listTasks'], 'without a key: only what anyone may call')
  const ids: number[] = []
  // The first call with no arguments at all: the defaults.
  let args: Record<string, unknown> | undefined
  for (let call = 0; call < 10; call++) {
    const { structuredContent, isError } = await anonymous.client.callTool({ name: 'listTasks', ...(args === undefined ? {} : { arguments: args }) })
    t.notOk(isError)
    const page = structuredContent as { items: Array<{ id: string, title?: string, owner?: unknown }>, has_more: boolean, next_offset?: number, total_tasks: number }
    t.equal(page.total_tasks, TITLES.length)
    for (const item of page.items) t.notOk('owner' in item, 'the hidden field reaches no agent')
    ids.push(...page.items.map((item) => Number(item.id)))
    if (!page.has_more) break
    args = { offset: page.next_offset }
  }
  t.strictSame(ids, [1, 2, 3, 4, 5], 'walked to its end by next_offset, two at a time')
  const needsKey = await anonymous.client.callTool({ name: 'getTask', arguments: { id: 1 } })
  t.equal(needsKey.isError, true)
  t.match((needsKey.content as Array<{ text: string }>)[0].text, `Unauthorized (401): This tool needs a key: start the server with ${STDIO_KEY_VARIABLE} set to one of API_KEYS.`)

  const keyed = await connect({ [STDIO_KEY_VARIABLE]: KEY })
  t.strictSame((await keyed.client.listTools()).tools.map((tool) => tool.name), ['getTask', 'listTasks'], 'with a key: every tool it may call')
  const task = await keyed.client.callTool({ name: 'getTask', arguments: { id: 3 } })
  t.match(task.structuredContent, { id: '3', title: 'Call the bank' })
  t.notOk('owner' in (task.structuredContent as object))
  const absent = await keyed.client.callTool({ name: 'getTask', arguments: { id: 99 } })
  t.match((absent.content as Array<{ text: string }>)[0].text, /^Not found \(404\): /, 'refusals as /mcp answers them')
  t.match(keyed.stderr(), /"msg":"serving MCP over stdio"/, 'logs on stderr, stdout being the protocol\'s')
  t.notMatch(keyed.stderr(), KEY, 'the key is never logged')
})

t.test('mcp --stdio: a key that is not one of API_KEYS, a bad setting or a refused file stops it at once', async (t) => {
  const databaseUrl = await tasksDatabase(t)
  const refused = await command(['mcp', '--stdio', FILE], { DATABASE_URL: databaseUrl, API_KEYS: KEY, [STDIO_KEY_VARIABLE]: 'not-a-configured-key', LOG_LEVEL: 'silent' })
  t.equal(refused.code, EXIT.invalid)
  t.equal(refused.stderr, `Invalid configuration: ${STDIO_KEY_VARIABLE} must be one of the keys in API_KEYS.\n`)
  const setting = await command(['mcp', '--stdio', FILE], { DATABASE_URL: databaseUrl, TIME_ZONE: 'Mars/Olympus' })
  t.equal(setting.code, EXIT.invalid)
  t.match(setting.stderr, /^Invalid configuration: TIME_ZONE /)
  const file = await command(['mcp', '--stdio', FILE], { DATABASE_URL: ':memory:', LOG_LEVEL: 'silent' })
  t.equal(file.code, EXIT.invalid)
  t.match(file.stderr, /^Invalid declaration file \(1 problem\):\n.*the database has no table or view "tasks"/)
})

t.test('a database out of reach is said on one line, with no stack, and exit 1', async (t) => {
  const unreachable = await command(['check', FILE], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' })
  t.equal(unreachable.code, EXIT.invalid)
  t.match(unreachable.stderr, /^Cannot start: .+\n$/)
  t.notMatch(unreachable.stderr, /\n\s+at /, 'no stack')
})

t.test('as a process, the exit code is the command\'s', async (t) => {
  const databaseUrl = await tasksDatabase(t)
  const started = async (...argv: string[]): Promise<{ code: number, stdout: string }> => {
    const { code, stdout } = await exited(process.execPath, [...NODE_ARGS, codePath('src/cli'), ...argv], { env: { ...process.env, DATABASE_URL: databaseUrl, TIME_ZONE: 'UTC' } })
    return { code, stdout }
  }
  t.strictSame(await started('check', FILE), { code: EXIT.ok, stdout: `${FILE}: valid: 1 record, 1 source, 2 mounts\n` })
  t.equal((await started('check', join(ROOT, 'test/fixtures/cli/missing.gateway.json'))).code, EXIT.invalid)
  t.equal((await started('check')).code, EXIT.usage)
})
