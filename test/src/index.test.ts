// The library face: a resource of one's own (test/fixtures/tasks.ts, the example the docs show),
// built only from what src/index.ts exports, served both ways and published in the document.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Fastify from 'fastify'
import t from 'tap'
import { AGENT_MEDIA_TYPE, gateway, serverOptions } from '../../src/index.js'
import tasks, { setUpTasks } from '../fixtures/tasks.js'
import { documentedResponses, mediaTypeOf, type OpenApiDocument } from '../helpers/openapi.js'
import { ROOT } from '../helpers/paths.js'

const KEY = 'a-key-of-my-own-0123456789'
const app = Fastify({ ...serverOptions('silent'), logger: false })
t.teardown(() => app.close())
await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'Europe/Paris', apiKeys: [KEY], setUp: setUpTasks })
await app.register(tasks)
await app.ready()
const documented = documentedResponses(app.swagger() as unknown as OpenApiDocument)

async function get (url: string, audience?: 'agent'): Promise<{ status: number, body: unknown }> {
  const res = await app.inject({ url, headers: { authorization: `Bearer ${KEY}`, ...(audience === undefined ? {} : { 'x-audience': audience }) } })
  const validate = documented.validator(url.replace(/\/\d+$/, '/{id}').split('?')[0], 'get', res.statusCode, mediaTypeOf(res.headers['content-type']))
  if (validate === undefined || !validate(res.json())) throw new Error(`${url}: not as published: ${JSON.stringify(validate?.errors)}`)
  return { status: res.statusCode, body: res.json() }
}

t.test('a plain client gets every task, every field, as stored', async (t) => {
  t.strictSame(await get('/tasks'), {
    status: 200,
    body: [
      { id: 1, title: 'Water the plants', state: 'done', due_on: '2026-12-01', owner_id: 7 },
      { id: 2, title: 'Write the report', state: 'open', due_on: null, owner_id: 7 }
    ]
  })
})

t.test('an agent gets the projected tasks in the offset envelope', async (t) => {
  t.strictSame(await get('/tasks?limit=1', 'agent'), {
    status: 200,
    body: {
      items: [{ id: 1, title: 'Water the plants', state: 'Done', due_on: '01 Dec 2026' }],
      has_more: true,
      total_tasks: 2,
      returned: 1,
      offset: 0,
      limit: 1,
      next_offset: 1,
      hint: 'Send offset=1 to get the next tasks; repeat until has_more is false.'
    }
  })
})

t.test('one task, and a missing one', async (t) => {
  t.strictSame(await get('/tasks/2', 'agent'), { status: 200, body: { id: 2, title: 'Write the report', state: 'Open', due_on: null } })
  t.match(await get('/tasks/9', 'agent'), { status: 404, body: { type: 'urn:audience-gateway:problem:not-found', detail: 'No record matches id 9.' } })
})

t.test('the document publishes both variants under the record\'s names', async (t) => {
  const document = app.swagger() as unknown as OpenApiDocument
  const content = document.paths['/tasks'].get.responses['200'].content ?? {}
  t.strictSame(Object.keys(content), ['application/json', AGENT_MEDIA_TYPE])
  t.ok(document.components?.schemas?.Task, 'Task')
  t.ok(document.components?.schemas?.TaskForAgents, 'TaskForAgents')
  t.ok(document.components?.schemas?.TaskPage, 'TaskPage')
  t.equal(document.paths['/books'], undefined, 'no demo resource comes with the library')
})

t.test('docs/your-own-resource.md quotes the example as it is', async (t) => {
  const example = await readFile(join(ROOT, 'test/fixtures/tasks.ts'), 'utf8')
  const docs = await readFile(join(ROOT, 'docs/your-own-resource.md'), 'utf8')
  const body = example.split('\n').slice(2).join('\n').replace('from \'../../src/index.js\'', 'from \'audience-gateway\'').trim()
  t.ok(docs.includes(body), 'the docs show test/fixtures/tasks.ts, importing the package')
})
