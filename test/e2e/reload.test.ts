// SIGHUP on the real process serving a declaration file: the file as rewritten is served (its
// routes, its OpenAPI document), a file rewritten wrong is refused with every problem logged on a
// line of its own while the routes in service keep serving, and the process still exits 0 on
// SIGTERM, every generation closed.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { startServer } from '../helpers/server.js'

const KEY = 'e2e-key-0123456789abcdef'

// The server process compiles its TypeScript first; this only bounds a hang.
t.setTimeout(300_000)

const TASK = {
  description: 'A task on the list.',
  fields: {
    id: { type: 'integer', description: 'The task\'s identifier.', handle: true },
    title: { type: 'string', description: 'What to do.', label: true }
  }
}

/** A file serving the tasks at each URL named, by the list's name. */
function declaration (lists: Record<string, string>, table = 'tasks'): string {
  return JSON.stringify({
    records: { Task: TASK },
    sources: { tasks: { table, orderBy: 'id' } },
    mounts: Object.entries(lists).map(([name, url]) => ({ kind: 'list', name, url, summary: `List the tasks (${name})`, record: 'Task', source: 'tasks', permissions: ['signed-in'] }))
  }, null, 2)
}

t.test('SIGHUP reads the file again: a valid one is served, a refused one logged while the old routes serve', async (t) => {
  const dir = t.testdir()
  const database = join(dir, 'tasks.sqlite')
  const db = new Database(database)
  db.exec('create table tasks (id integer primary key, title text not null)')
  db.exec('insert into tasks values (1, \'Water the plants\'), (2, \'Write the report\')')
  db.close()
  const file = join(dir, 'gateway.json')
  await writeFile(file, declaration({ listTasks: '/tasks' }))
  const server = await startServer({ API_KEYS: KEY, DATABASE_URL: database, GATEWAY_CONFIG: file, SHUTDOWN_DRAIN_SECONDS: '0' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const get = async (path: string): Promise<Response> => await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } })
  t.equal((await get('/chores')).status, 404)

  await writeFile(file, declaration({ listTasks: '/tasks', listChores: '/chores' }))
  server.child.kill('SIGHUP')
  t.match(await server.logged(/^SIGHUP: reading the declaration file again$/), { path: file })
  t.match(await server.logged(/^reloaded/), { level: 30, path: file, mounts: 2, was: 1, added: ['/chores (listChores)'], removed: [] }, 'what changed is logged')
  t.strictSame(await (await get('/chores')).json(), [{ id: 1, title: 'Water the plants' }, { id: 2, title: 'Write the report' }], 'the new URL is served')
  t.equal((await get('/tasks')).status, 200, 'and the one kept')
  const document = await (await get('/openapi.json')).json() as { paths: Record<string, unknown> }
  t.ok('/chores' in document.paths, 'the OpenAPI document follows')
  t.ok(await server.logged(/^the routes the file replaced are closed/))

  const broken = JSON.parse(declaration({ listTasks: '/tasks' }))
  broken.mounts[0].kind = 'index'
  await writeFile(file, JSON.stringify(broken, null, 2))
  server.child.kill('SIGHUP')
  const refused = await server.logged(/^reload refused/)
  t.match(refused, { level: 50, path: file, problems: 1, msg: 'reload refused: the declaration file has 1 problem; the routes in service are kept' })
  t.match(await server.logged(/\/mounts\/0\/kind: /), { level: 50, msg: new RegExp(`^${file}:\\d+:\\d+: /mounts/0/kind: "kind" must be one of "list", "retrieve", "text", "bytes", "action"; got "index"$`) }, 'the problem on a line of its own, located')
  t.equal((await get('/chores')).status, 200, 'the routes in service keep serving')

  await writeFile(file, declaration({ listTasks: '/tasks' }, 'chores'))
  server.child.kill('SIGHUP')
  t.match(await server.logged(/the database has no table or view "chores"/), { level: 50, msg: new RegExp(`^${file}:\\d+:\\d+: /sources/tasks/table: `) }, 'what the database refuses, too')
  t.equal((await get('/chores')).status, 200)

  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'every generation closed, nothing left open: the process ends')
})
