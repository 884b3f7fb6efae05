// docs/declaration-file.md walks from an empty file to a served table: the files it shows are the
// files served here, built only from what src/index.ts exports, and they answer as the page says.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import type { Kysely } from 'kysely'
import t from 'tap'
import { declaredApp, loadDeclarationFile, serverOptions } from '../../src/index.js'
import { ROOT } from '../helpers/paths.js'

const KEY = 'my-long-key-0123456789'
const page = await readFile(join(ROOT, 'docs/declaration-file.md'), 'utf8')

/** The first JSON block after `heading`. */
function jsonAfter (heading: string): string {
  const from = page.indexOf(heading)
  t.ok(from >= 0, `the page has "${heading}"`)
  const block = /```json\n([\s\S]*?)\n```/.exec(page.slice(from))
  return block === null ? '' : block[1]
}

/** The table the page's sqlite3 command makes. */
async function setUpTasks (db: Kysely<any>): Promise<void> {
  await db.schema.createTable('tasks').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('title', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull()).addColumn('due_on', 'text').addColumn('owner_id', 'integer', (c) => c.notNull()).execute()
  await db.insertInto('tasks').values([
    { id: 1, title: 'Water the plants', state: 'done', due_on: '2026-12-01', owner_id: 7 },
    { id: 2, title: 'Write the report', state: 'open', due_on: null, owner_id: 7 }
  ]).execute()
}

async function serve (t: { teardown: (fn: () => unknown) => void }, text: string): Promise<ReturnType<typeof Fastify>> {
  const app = Fastify({ ...serverOptions('silent'), logger: false })
  t.teardown(async () => { await app.close() })
  await app.register(fp(declaredApp), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], setUp: setUpTasks, file: loadDeclarationFile('gateway.json', text), env: {} })
  await app.ready()
  return app
}

t.test('the empty file serves the documentation and nothing else', async (t) => {
  const app = await serve(t, jsonAfter('### 1. An empty file'))
  t.equal((await app.inject('/openapi.json')).statusCode, 200)
  t.strictSame(Object.keys((await app.inject('/openapi.json')).json().paths), ['/healthz', '/readyz'])
})

t.test('the tasks file serves the table as the page shows', async (t) => {
  const app = await serve(t, jsonAfter('### 3. The record, its source, its mount'))
  const auth = { authorization: `Bearer ${KEY}` }
  t.strictSame((await app.inject({ url: '/tasks', headers: auth })).json(), [
    { id: 1, title: 'Water the plants', state: 'done', due_on: '2026-12-01', owner: 7 },
    { id: 2, title: 'Write the report', state: 'open', due_on: null, owner: 7 }
  ])
  t.match((await app.inject({ url: '/tasks?limit=1', headers: { ...auth, 'x-audience': 'agent' } })).json(), {
    items: [{ id: 1, title: 'Water the plants', state: 'Done', due_on: '01 Dec 2026' }],
    has_more: true,
    total_tasks: 2,
    returned: 1,
    offset: 0,
    limit: 1,
    next_offset: 1
  })
  t.strictSame((await app.inject({ url: '/tasks/2', headers: { ...auth, 'x-audience': 'agent' } })).json(), { id: 2, title: 'Write the report', state: 'Open', due_on: null })
  const call = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...auth, host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listTasks', arguments: { limit: 1 } } }
  })
  t.match(call.json(), { result: { structuredContent: { items: [{ id: 1, state: 'Done' }], has_more: true } } })
})

t.test('the file\'s info heads the document: its title, its version, its licence', async (t) => {
  const file = JSON.parse(jsonAfter('### 1. An empty file'))
  const licensed = await serve(t, JSON.stringify({ ...file, info: { title: 'Tasks', version: '2.1.0', description: 'The team\'s tasks.', license: { name: 'Apache 2.0', identifier: 'Apache-2.0' } } }))
  t.match((await licensed.inject('/openapi.json')).json().info, { title: 'Tasks', version: '2.1.0', description: /^The team's tasks\. The same operations are served to agents as MCP tools/, license: { name: 'Apache 2.0', identifier: 'Apache-2.0' } })
  const unlicensed = await serve(t, JSON.stringify({ ...file, info: { title: 'Tasks', version: '2.1.0' } }))
  const info = (await unlicensed.inject('/openapi.json')).json().info
  t.notOk('license' in info, 'no licence declared, none stated')
  t.match(info.description, /^The same operations are served to agents/, 'no description of its own: only how agents reach it')
  t.match((await (await serve(t, JSON.stringify(file))).inject('/openapi.json')).json().info, { title: 'Audience Gateway', version: /^\d+\.\d+\.\d+$/ }, 'no info: the gateway\'s own')
})
