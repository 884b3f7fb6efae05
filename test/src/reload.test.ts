// Reloading the declaration file behind one listener (src/reload.ts, src/generations.ts), in this
// process: a valid file swaps the routes, the OpenAPI document and the MCP tools for new requests;
// a plain list in flight ends whole on the routes it began on, and those are closed once it has;
// a refused file keeps the routes in service, every problem logged on a line of its own; reloads
// asked for at once run one after the other, and the last file wins.
import { EventEmitter, once } from 'node:events'
import { rmSync, writeFileSync } from 'node:fs'
import { request, type IncomingMessage } from 'node:http'
import { syncBuiltinESMExports } from 'node:module'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import perfHooks, { type IntervalHistogram } from 'node:perf_hooks'
import Database from 'better-sqlite3'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { pino } from 'pino'
import t, { type Test } from 'tap'
import declaredApp from '../../src/declared-app.js'
import { createListener, Generations } from '../../src/generations.js'
import { processMetrics } from '../../src/observe/metrics.js'
import { buildGeneration, MAX_DECLARATION_FILE_BYTES, readDeclarationFile, reloader, type AppGeneration } from '../../src/reload.js'
import { generationOptions, LISTENER_LIMITS } from '../../src/server.js'
import { AUTH, KEY } from '../helpers/app.js'
import { until } from '../helpers/until.js'

/** Long enough that a client which stops reading holds the list in flight (its socket fills). */
const TASKS = 40_000
const TITLE = 'A task with a title long enough to make the list weigh megabytes. '.repeat(2)

const dir = t.testdir()
const database = join(dir, 'tasks.sqlite')
const db = new Database(database)
db.exec('create table tasks (id integer primary key, title text not null, state text not null)')
const insert = db.prepare('insert into tasks values (?, ?, ?)')
db.transaction(() => { for (let id = 1; id <= TASKS; id++) insert.run(id, `${TITLE}${id}`, id % 2 === 0 ? 'done' : 'open') })()
db.close()

const TASK = {
  description: 'A task on the list.',
  fields: {
    id: { type: 'integer', description: 'The task\'s identifier.', handle: true },
    title: { type: 'string', description: 'What to do.', label: true },
    state: { choices: { open: 'Open', done: 'Done' }, description: 'Whether it is done.' }
  }
}

/** A file serving the tasks at each URL named, as a list called `list<Name>`. */
function declaration (lists: Record<string, string>, task: object = TASK, table = 'tasks'): string {
  return JSON.stringify({
    records: { Task: task },
    sources: { tasks: { table, orderBy: 'id' } },
    mounts: Object.entries(lists).map(([name, url]) => ({ kind: 'list', name, url, summary: `List the tasks (${name})`, record: 'Task', source: 'tasks', permissions: ['signed-in'] }))
  })
}

/** The first file, with a filter on a field it hides: the core refuses it when it is mounted. */
function filtered (): string {
  const file = JSON.parse(declaration({ listTasks: '/tasks' }, { ...TASK, fields: { ...TASK.fields, state: { ...TASK.fields.state, hidden: true } } }))
  file.mounts[0].filters = { state: 'equals' }
  return JSON.stringify(file)
}

/** The process's metrics, shared by every app built here, as the server shares them (src/server.ts). */
const PROCESS_METRICS = processMetrics()

const FIRST = declaration({ listTasks: '/tasks' })
const SECOND = declaration({ listChores: '/chores', listTodo: '/todo' })

interface Entry { readonly level: 'info' | 'error', readonly msg: string, readonly [key: string]: unknown }

/** What the reloader logs, kept, and told as it comes. */
function recorder (): { entries: Entry[], log: Pick<FastifyBaseLogger, 'info' | 'error'>, logged: (message: RegExp) => Promise<Entry> } {
  const entries: Entry[] = []
  const told = new EventEmitter()
  const keep = (level: Entry['level']) => (details: object, msg: string) => {
    const entry = { ...details, level, msg }
    entries.push(entry)
    told.emit('entry', entry)
  }
  const log = { info: keep('info'), error: keep('error') } as unknown as Pick<FastifyBaseLogger, 'info' | 'error'>
  const logged = async (message: RegExp): Promise<Entry> => entries.find((entry) => message.test(entry.msg)) ?? await new Promise((resolve) => {
    const listen = (entry: Entry): void => {
      if (!message.test(entry.msg)) return
      told.off('entry', listen)
      resolve(entry)
    }
    told.on('entry', listen)
  })
  return { entries, log, logged }
}

interface Served {
  readonly url: string
  readonly path: string
  readonly generations: Generations<AppGeneration>
  /** Every app built, refused ones included, in order. */
  readonly built: FastifyInstance[]
  readonly reload: () => Promise<'reloaded' | 'refused'>
  readonly entries: Entry[]
  readonly logged: (message: RegExp) => Promise<Entry>
}

/** The first file served behind a listener on the loopback, with a reloader for its path. */
async function serve (t: Test, text: string, wrap: (build: (file: Parameters<typeof declaredApp>[1]['file']) => Promise<AppGeneration>) => typeof build = (build) => build): Promise<Served> {
  const path = join(t.testdir(), 'gateway.json')
  writeFileSync(path, text)
  const { entries, log, logged } = recorder()
  const options = generationOptions('silent', pino({ level: 'silent' }))
  const built: FastifyInstance[] = []
  const build = wrap(async (file) => await buildGeneration(options, async (app) => {
    built.push(app)
    await app.register(fp(declaredApp), {
      databaseUrl: database,
      timeZone: 'UTC',
      apiKeys: [KEY],
      loadShedding: { maxEventLoopDelay: 0 },
      processMetrics: PROCESS_METRICS,
      // The slow reader below pauses for as long as the test takes: never cut for it here.
      stallMs: 600_000,
      file,
      env: {}
    })
  }))
  const generations = new Generations(await build(await readDeclarationFile(path)))
  const listener = createListener(generations, LISTENER_LIMITS)
  await new Promise<void>((resolve) => { listener.listen({ port: 0, host: '127.0.0.1' }, resolve) })
  t.teardown(async () => {
    const closed = new Promise((resolve) => { listener.close(resolve) })
    listener.closeAllConnections()
    await generations.close()
    await closed
  })
  const { port } = listener.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, path, generations, built, reload: reloader({ path, generations, build, log }), entries, logged }
}

async function get (url: string, headers: Record<string, string> = AUTH): Promise<Response> {
  return await fetch(url, { headers })
}

async function mcp (url: string, message: object): Promise<any> {
  const res = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }) })
  return await res.json()
}

async function isClosed (app: FastifyInstance): Promise<boolean> {
  return await app.store.db.withTables<{ tasks: { id: number } }>().selectFrom('tasks').select('id').limit(1).execute().then(() => false, () => true)
}

t.test('a valid file: new requests get its routes, its OpenAPI document and its MCP tools', async (t) => {
  const served = await serve(t, FIRST)
  t.equal((await get(`${served.url}/tasks?limit=1`, { ...AUTH, 'x-audience': 'agent' })).status, 200, 'the first file is served')
  const [first] = served.built

  writeFileSync(served.path, SECOND)
  t.equal(await served.reload(), 'reloaded')
  t.match(served.entries.find(({ msg }) => msg.startsWith('reloaded')), {
    level: 'info', path: served.path, mounts: 2, was: 1, added: ['/chores (listChores)', '/todo (listTodo)'], removed: ['/tasks (listTasks)'], finishing: 0
  }, 'what changed is logged')

  const todo = await get(`${served.url}/todo?limit=2`, { ...AUTH, 'x-audience': 'agent' })
  t.equal(todo.status, 200, 'a URL of the new file is served')
  t.match(await todo.json(), { items: [{ id: 1, state: 'Open' }, { id: 2, state: 'Done' }] })
  const gone = await get(`${served.url}/tasks`)
  t.equal(gone.status, 404, 'one the new file no longer declares is not')
  t.match(gone.headers.get('content-type'), /^application\/problem\+json/, 'the gateway\'s own not-found, with its headers')
  t.ok(gone.headers.get('x-content-type-options'), 'and the security headers')

  const document = await (await get(`${served.url}/openapi.json`)).json() as { paths: Record<string, unknown> }
  t.strictSame(Object.keys(document.paths).filter((path) => path !== '/healthz' && path !== '/readyz').sort(), ['/chores', '/todo'], 'the OpenAPI document follows')

  const tools = await mcp(served.url, { method: 'tools/list' })
  t.strictSame(tools.result.tools.map(({ name }: { name: string }) => name), ['listChores', 'listTodo'], 'the MCP tool list follows')
  const direct = await mcp(served.url, { method: 'tools/call', params: { name: 'listTodo', arguments: { limit: 1 } } })
  t.match(direct, { result: { structuredContent: { items: [{ id: 1 }] } } }, 'a new tool is called (the direct path)')
  const bySdk = await mcp(served.url, { method: 'tools/call', params: { name: 'listTodo', arguments: { limit: 1 }, _meta: {} } })
  t.strictSame(bySdk, direct, 'and through the SDK, alike')
  const old = await mcp(served.url, { method: 'tools/call', params: { name: 'listTasks', arguments: {}, _meta: {} } })
  t.match(old, { error: { message: /Unknown tool: listTasks/ } }, 'an old tool is gone (through the SDK)')
  const oldDirect = await mcp(served.url, { method: 'tools/call', params: { name: 'listTasks', arguments: {} } })
  t.strictSame(oldDirect, old, 'and on the direct path')

  await served.logged(/^the routes the file replaced are closed/)
  t.ok(await isClosed(first), 'the first app, idle, is closed: its store too')
  t.notOk(await isClosed(served.generations.current.app), 'the new one is open')
  t.equal(served.generations.open, 1)
})

t.test('a plain list in flight ends whole on the routes it began on; then they are closed', async (t) => {
  const served = await serve(t, FIRST)
  const [first] = served.built
  const { hostname, port } = new URL(served.url)
  const slow = await new Promise<IncomingMessage>((resolve) => {
    request({ hostname, port, path: '/tasks', headers: AUTH }, resolve).end()
  })
  t.equal(slow.statusCode, 200)
  const chunks: Buffer[] = []
  slow.on('data', (chunk: Buffer) => chunks.push(chunk))
  await once(slow, 'data')
  slow.pause()

  writeFileSync(served.path, SECOND)
  t.equal(await served.reload(), 'reloaded')
  t.match(served.entries.find(({ msg }) => msg.startsWith('reloaded')), { finishing: 1 }, 'the list is still in flight on the old routes')
  t.equal((await get(`${served.url}/tasks`)).status, 404, 'a new request meanwhile gets the new routes')
  t.equal((await get(`${served.url}/todo?limit=1`, { ...AUTH, 'x-audience': 'agent' })).status, 200)
  t.equal(served.generations.open, 2, 'both are open')
  t.equal(served.generations.inFlight, 1)
  t.notOk(await isClosed(first), 'the old routes\' store is open while the list reads from it')
  t.notOk(served.entries.some(({ msg }) => msg.startsWith('the routes the file replaced are closed')))

  slow.resume()
  await once(slow, 'end')
  const tasks = JSON.parse(Buffer.concat(chunks).toString()) as Array<{ id: number }>
  t.equal(tasks.length, TASKS, 'the list arrived whole')
  t.equal(tasks.at(-1)?.id, TASKS)
  await served.logged(/^the routes the file replaced are closed/)
  t.ok(await isClosed(first), 'once it ended, the old routes are closed, their store too')
  t.equal(served.generations.open, 1)
  t.equal(served.generations.inFlight, 0)
})

t.test('a refused file: every problem logged on a line of its own, the routes in service kept', async (t) => {
  const served = await serve(t, FIRST)
  const cases: Array<[string, string | undefined, RegExp[]]> = [
    ['a file that cannot be read', undefined, [/gateway\.json cannot be read \(ENOENT\)\.$/]],
    ['a file that is not JSON', '{ "records": ', [/gateway\.json:1:\d+: \/: not JSON: /]],
    ['a file over 1 MiB', `{"records": {}, "sources": {}, "mounts": [], "x": "${'x'.repeat(MAX_DECLARATION_FILE_BYTES)}"}`, [/gateway\.json is 1048\d{3} bytes: a declaration file is read up to 1048576 bytes \(1 MiB\)\.$/]],
    ['a file nested thousands deep', `${'['.repeat(3000)}${']'.repeat(3000)}`, [/gateway\.json: \/: nests more than 64 levels deep/]],
    ['schema errors', JSON.stringify({ records: {}, sources: {}, mounts: [{ kind: 'list' }], extra: 1 }), [/\/extra: /, /\/mounts\/0: /]],
    ['a table the database does not have', declaration({ listTasks: '/tasks' }, TASK, 'chores'), [/\/sources\/tasks\/table: .*"chores"/]],
    ['a record refused: two labels', declaration({ listTasks: '/tasks' }, { ...TASK, fields: { ...TASK.fields, state: { type: 'string', description: 'Its state.', label: true } } }), [/\/records\/Task: .*"title" and "state" are both marked as the label/]],
    ['a core refusal at compile: a filter on a hidden field', filtered(), [/\/mounts\/0: .*hidden/]]
  ]
  for (const [what, text, lines] of cases) {
    if (text === undefined) rmSync(served.path)
    else writeFileSync(served.path, text)
    const before = served.entries.length
    t.equal(await served.reload(), 'refused', what)
    const logged = served.entries.slice(before)
    t.match(logged[0], { level: 'error', path: served.path, problems: logged.length - 1, msg: /^reload refused: the declaration file has \d+ problems?; the routes in service are kept$/ }, `${what}: the refusal is logged`)
    t.ok(logged.length > 1 && logged.slice(1).every((entry) => entry.level === 'error' && entry.path === served.path && !entry.msg.includes('\n')), `${what}: then each problem, one line each`)
    for (const line of lines) t.ok(logged.slice(1).some(({ msg }) => line.test(msg)), `${what}: ${String(line)}`)
    t.equal((await get(`${served.url}/tasks?limit=1`, { ...AUTH, 'x-audience': 'agent' })).status, 200, `${what}: the routes in service are kept`)
    t.equal(served.generations.open, 1)
  }
  // The apps built for the refused files that could be read (the schema's problems go on to the
  // database with the rest) are closed again.
  const refused = served.built.slice(1)
  t.equal(refused.length, 4, 'the refusals of the schema, the database and the compiler built an app')
  for (const app of refused) t.ok(await isClosed(app), 'and it is closed, its store too')
})

t.test('reloads asked for at once run one after the other, and the last file wins', async (t) => {
  let building = 0
  let most = 0
  const served = await serve(t, FIRST, (build) => async (file) => {
    most = Math.max(most, ++building)
    try {
      return await build(file)
    } finally {
      building--
    }
  })
  writeFileSync(served.path, SECOND)
  const first = served.reload()
  const [second, third] = [served.reload(), served.reload()]
  writeFileSync(served.path, declaration({ listLast: '/last' }))
  t.strictSame(await Promise.all([first, second, third]), ['reloaded', 'reloaded', 'reloaded'])
  t.equal(most, 1, 'never two builds at once')
  t.equal(served.built.length, 3, 'the two asked for meanwhile made one more')
  t.equal((await get(`${served.url}/last`)).status, 200, 'the last file is served')
  t.equal((await get(`${served.url}/todo`)).status, 404)
  t.equal(served.entries.filter(({ msg }) => msg.startsWith('reloaded')).length, 2)
  t.equal(await served.reload(), 'reloaded', 'and reloads run again later')
})

t.test('a shutdown refuses reloads, even one whose app was being built', async (t) => {
  let drainWhileBuilding = false
  const served = await serve(t, FIRST, (build) => async (file) => {
    const next = await build(file)
    if (drainWhileBuilding) served.generations.current.app.drain()
    return next
  })
  writeFileSync(served.path, SECOND)
  drainWhileBuilding = true
  t.equal(await served.reload(), 'refused')
  t.match(served.entries.at(-1), { level: 'info', msg: 'reload refused: the process is shutting down' })
  t.ok(await isClosed(served.built[1]), 'the app built meanwhile is closed, never served')
  t.equal((await get(`${served.url}/tasks?limit=1`, { ...AUTH, 'x-audience': 'agent' })).status, 200, 'the routes in service are kept')
  t.equal(await served.reload(), 'refused', 'once draining, a reload is refused before it reads')
  t.equal(served.built.length, 2)
})

t.test('an app that fails to build for another reason is logged with its error', async (t) => {
  let fail = false
  const served = await serve(t, FIRST, (build) => async (file) => {
    if (fail) throw new Error('the database is out of reach')
    return await build(file)
  })
  fail = true
  t.equal(await served.reload(), 'refused')
  t.match(served.entries.at(-1), { level: 'error', msg: 'reload refused: the app could not be built; the routes in service are kept', err: { message: 'the database is out of reach' } })
  t.equal((await get(`${served.url}/tasks?limit=1`, { ...AUTH, 'x-audience': 'agent' })).status, 200)
})

t.test('fifty reloads leave nothing of the apps they replaced measuring the process', async (t) => {
  const served = await serve(t, FIRST)
  // Every event-loop histogram made from here on, seen through Node's own module (an ESM import of
  // it follows once synced): each app's load shedding makes one; the process's metrics made theirs once.
  const made: IntervalHistogram[] = []
  const monitor = perfHooks.monitorEventLoopDelay
  perfHooks.monitorEventLoopDelay = (options) => {
    const histogram = monitor(options)
    made.push(histogram)
    return histogram
  }
  syncBuiltinESMExports()
  t.teardown(() => {
    perfHooks.monitorEventLoopDelay = monitor
    syncBuiltinESMExports()
  })
  for (let reload = 1; reload <= 50; reload++) {
    writeFileSync(served.path, reload % 2 === 1 ? SECOND : FIRST)
    t.equal(await served.reload(), 'reloaded')
  }
  t.equal(made.length, 50, 'one histogram an app')
  // The app the last reload replaced closes once the requests it had in flight have ended.
  await until(async () => await isClosed(served.built.at(-2) as FastifyInstance), 'the replaced app has closed')
  // enable() answers false for a histogram still enabled: one its app left running.
  const running = made.map((histogram) => !histogram.enable())
  t.strictSame(running, [...Array(49).fill(false), true], 'only the app in service still measures')
  for (const histogram of made.slice(0, -1)) histogram.disable()
})
