// The process serving a declaration file, as `npm start` runs it with GATEWAY_CONFIG or a path
// argument: a table of one's own served both ways, and a refused file stopping the start before it
// listens, every problem on a line of its own, never a stack trace.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { runServer, startServer } from '../helpers/server.js'

const KEY = 'e2e-key-0123456789abcdef'

// Each test starts a server process that compiles its TypeScript first; this only bounds a hang.
t.setTimeout(300_000)

const TASKS = {
  records: {
    Task: {
      description: 'A task on the list.',
      fields: {
        id: { type: 'integer', description: 'The task\'s identifier.', handle: true },
        title: { type: 'string', description: 'What to do.', label: true },
        state: { choices: { open: 'Open', done: 'Done' }, description: 'Whether it is done.' },
        due_on: { type: 'date', nullable: true, description: 'When it is due, if it is.', timestamp: { format: 'dd LLL yyyy' } },
        owner: { type: 'integer', description: 'Who owns the task.', hidden: true }
      }
    }
  },
  sources: { tasks: { table: 'tasks', orderBy: 'id', fields: { owner: 'owner_id' } } },
  mounts: [{ kind: 'list', name: 'listTasks', url: '/tasks', summary: 'List the tasks', record: 'Task', source: 'tasks', permissions: ['signed-in'], paging: { style: 'offset', unit: 'tasks' } }]
}

function tasksDatabase (dir: string): string {
  const path = join(dir, 'tasks.sqlite')
  const db = new Database(path)
  db.exec('create table tasks (id integer primary key, title text not null, state text not null, due_on text, owner_id integer not null)')
  db.exec('insert into tasks values (1, \'Water the plants\', \'done\', \'2026-12-01\', 7), (2, \'Write the report\', \'open\', null, 7)')
  db.close()
  return path
}

t.test('GATEWAY_CONFIG names a file: its table is served to plain clients and agents', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify(TASKS, null, 2))
  const server = await startServer({ API_KEYS: KEY, DATABASE_URL: tasksDatabase(dir), GATEWAY_CONFIG: file, SHUTDOWN_DRAIN_SECONDS: '0' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const plain = await fetch(`${server.url}/tasks`, { headers: { authorization: `Bearer ${KEY}` } })
  t.strictSame(await plain.json(), [
    { id: 1, title: 'Water the plants', state: 'done', due_on: '2026-12-01', owner: 7 },
    { id: 2, title: 'Write the report', state: 'open', due_on: null, owner: 7 }
  ])
  const agent = await fetch(`${server.url}/tasks?limit=1`, { headers: { authorization: `Bearer ${KEY}`, 'x-audience': 'agent' } })
  t.match(await agent.json(), { items: [{ id: 1, title: 'Water the plants', state: 'Done', due_on: '01 Dec 2026' }], has_more: true, total_tasks: 2, next_offset: 1 })
  t.equal((await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${KEY}` } })).status, 404, 'nothing of the demo is served')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('a YAML file named on the command line wins over GATEWAY_CONFIG', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, [
    'records:',
    '  Task:',
    '    fields:',
    '      id: { type: integer, handle: true }',
    '      title: { type: string, label: true }',
    'sources:',
    '  tasks: { table: tasks, orderBy: -id }',
    'mounts:',
    '  - { kind: list, name: listTasks, url: /tasks, summary: List the tasks, record: Task, source: tasks, permissions: [unrestricted] }',
    ''
  ].join('\n'))
  const server = await startServer({ API_KEYS: KEY, DATABASE_URL: tasksDatabase(dir), GATEWAY_CONFIG: join(dir, 'missing.json'), SHUTDOWN_DRAIN_SECONDS: '0' }, [file])
  t.teardown(() => { server.child.kill('SIGKILL') })
  t.strictSame(await (await fetch(`${server.url}/tasks`)).json(), [{ id: 2, title: 'Write the report' }, { id: 1, title: 'Water the plants' }], 'ordered by id, descending')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('a refused file stops the start: every problem on its own line, located, no stack', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'gateway.json')
  const broken = structuredClone(TASKS) as any
  broken.records.Task.fields.state.label = true
  broken.sources.tasks.table = 'chores'
  broken.mounts.push({ ...broken.mounts[0], name: 'listTasksAgain' })
  await writeFile(file, JSON.stringify(broken, null, 2))
  const { code, stderr } = await runServer({ DATABASE_URL: tasksDatabase(dir), GATEWAY_CONFIG: file })
  t.equal(code, 1)
  const lines = stderr.trimEnd().split('\n')
  t.equal(lines[0], 'Invalid declaration file (3 problems):')
  t.match(lines[1], new RegExp(`^${file}:\\d+:\\d+: /records/Task: Record 'Task': a record has one label, but "title" and "state" are both marked as the label.$`))
  t.match(lines[2], new RegExp(`^${file}:\\d+:\\d+: /sources/tasks/table: the database has no table or view "chores"; it has: tasks$`), 'a source no mount could be compiled with is checked too')
  t.match(lines[3], new RegExp(`^${file}:\\d+:\\d+: /mounts/1/url: serves the URL of mount 0 too`))
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
})

t.test('a file the database refuses names the table, before listening', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'gateway.json')
  const broken = structuredClone(TASKS) as any
  broken.sources.tasks.table = 'chores'
  await writeFile(file, JSON.stringify(broken, null, 2))
  const { code, stderr } = await runServer({ DATABASE_URL: tasksDatabase(dir) }, [file])
  t.equal(code, 1)
  t.match(stderr, new RegExp(`${file}:\\d+:\\d+: /sources/tasks/table: the database has no table or view "chores"; it has: tasks\n$`))
  t.notMatch(stderr, /\n\s+at /)
})

t.test('a file that cannot be read is one line', async (t) => {
  const file = join(t.testdir(), 'nowhere.json')
  const { code, stderr } = await runServer({ GATEWAY_CONFIG: file })
  t.equal(code, 1)
  t.equal(stderr, `Invalid declaration file: ${file} cannot be read (ENOENT).\n`)
})

t.test('a file that is not JSON stops the start before anything is opened, located', async (t) => {
  const file = join(t.testdir(), 'broken.json')
  await writeFile(file, '{\n  "records": {,\n}')
  const { code, stderr } = await runServer({ GATEWAY_CONFIG: file })
  t.equal(code, 1)
  t.match(stderr, new RegExp(`^Invalid declaration file \\(1 problem\\):\\n${file}:2:\\d+: /: not JSON: [^\\n]+\\n$`))
})

t.test('a failure that is not the file\'s is not dressed up as one', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify(TASKS))
  // A database no one answers at: port 1 on the loopback.
  const { code, stderr } = await runServer({ DATABASE_URL: 'postgres://gateway@127.0.0.1:1/none', GATEWAY_CONFIG: file })
  t.equal(code, 1)
  t.notMatch(stderr, /Invalid declaration file/)
  t.match(stderr, /^Cannot start: .*ECONNREFUSED.*\n$/, 'one line, no stack')
})

t.test('a SQLite DATABASE_URL naming no file stops the start on one line, and nothing is created', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify(TASKS, null, 2))
  const missing = join(dir, 'typo', 'taks.sqlite')
  const { code, stderr } = await runServer({ DATABASE_URL: missing, GATEWAY_CONFIG: file })
  t.equal(code, 1)
  t.equal(stderr, `Cannot start: DATABASE_URL names no SQLite file: ${missing} does not exist. Set DATABASE_URL to the SQLite file holding the tables the declaration file reads: none is created for it, as a new one would hold none of them.\n`)
  t.notOk(existsSync(join(dir, 'typo')), 'neither the file nor its directory')
})
