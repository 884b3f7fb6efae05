// How the swagger plugin names and places what routes declare, on small apps of their own: one
// name never describes two schemas, a schema's own $id names it, declared headers stay; and the
// serializers leave the schemas the document is cut from as declared.
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import audience from '../../plugins/audience.js'
import auth from '../../plugins/auth.js'
import mount from '../../plugins/mount.js'
import problems from '../../plugins/problems.js'
import swagger from '../../plugins/swagger.js'
import { Book } from '../../routes/books/book.js'
import { JSON_VARIANTS } from '../../src/audience.js'
import { Marking } from '../../src/declare/index.js'
import type { ListMount } from '../../src/core/index.js'
import { compileSerializer } from '../../src/core/serializer.js'
import { signedIn } from '../../src/permissions.js'
import { arraySource } from '../../src/sources/index.js'
import { deepFreeze } from '../helpers/freeze.js'

const KEY = 'components-test-key-0123'

const listBooks: ListMount = {
  kind: 'list',
  name: 'listBooks',
  url: '/books',
  summary: 'List the books',
  declaration: Book,
  source: arraySource([]),
  permissions: [signedIn]
}
const withAuthors: ListMount = {
  ...listBooks,
  name: 'listBooksWithAuthors',
  url: '/books/with-authors',
  overrides: { author_id: Marking.handle() }
}

async function gatewayApp (t: Test, routes: (app: FastifyInstance) => void): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  await app.register(problems)
  await app.register(swagger)
  await app.register(audience)
  await app.register(auth, { keys: [KEY] })
  await app.register(mount, { timeZone: 'UTC' })
  routes(app)
  await app.ready()
  return app
}

t.test('two mounts whose agent items differ cannot share a name: registration says to set schemaName', async (t) => {
  await t.rejects(gatewayApp(t, (app) => { app.mount(listBooks); app.mount(withAuthors) }), {
    name: 'MountError',
    message: /GET \/books\/with-authors publishes a schema named 'BookForAgents' that differs .*`schemaName`/
  })
})

t.test('with its own schemaName, the second mount gets its own components and shares Book', async (t) => {
  const app = await gatewayApp(t, (app) => { app.mount(listBooks); app.mount({ ...withAuthors, schemaName: 'BookWithAuthors' }) })
  const { components } = app.swagger() as { components: { schemas: Record<string, unknown> } }
  t.strictSame(Object.keys(components.schemas), ['Book', 'BookForAgents', 'BookPage', 'BookWithAuthorsForAgents', 'BookWithAuthorsPage', 'Problem'])
})

t.test('a schema carrying its own $id is a component under that name, never def-N', async (t) => {
  const app = await gatewayApp(t, (app) => {
    app.get('/thing', {
      schema: {
        response: {
          200: { type: 'object', properties: { part: { $id: 'Part', type: 'object', properties: { n: { type: 'integer' } } } } }
        }
      }
    }, async () => ({ part: { n: 1 } }))
  })
  const document = app.swagger() as { components: { schemas: Record<string, unknown> }, paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: { properties: object } }> }> } }> }
  t.ok('Part' in document.components.schemas)
  t.strictSame(document.paths['/thing'].get.responses['200'].content['application/json'].schema.properties, { part: { $ref: '#/components/schemas/Part' } })
})

t.test('a negotiated route keeps the headers it declares beside X-Audience; a route without a schema is documented as is', async (t) => {
  const app = await gatewayApp(t, (app) => {
    app.get('/traced', {
      config: { variants: JSON_VARIANTS },
      schema: { headers: { type: 'object', properties: { 'x-trace': { type: 'string', description: 'A trace id.' } }, required: ['x-trace'] } }
    }, async () => ({}))
    app.get('/bare', async () => ({}))
  })
  const document = app.swagger() as { paths: Record<string, { get: { parameters?: Array<{ name: string, in: string, required: boolean }>, security?: unknown } }> }
  t.match(document.paths['/traced'].get.parameters, [
    { name: 'x-trace', in: 'header', required: true },
    { name: 'X-Audience', in: 'header', required: false }
  ])
  t.ok('/bare' in document.paths)
  t.notOk('security' in document.paths['/bare'].get)
  t.equal(document.paths['/bare'].get.parameters, undefined)
})

t.test('compiling a serializer leaves the published schema as declared', async (t) => {
  // fast-json-stringify reorders a type list in place (null first): frozen, that would throw.
  const schema = deepFreeze({ type: 'object', properties: { on: { type: ['string', 'null'] } }, required: ['on'] })
  t.equal(compileSerializer({ schema })({ on: null }), '{"on":null}')
  t.strictSame(schema.properties.on.type, ['string', 'null'])
})

t.test('a mount serves without the gateway\'s metrics: its rows are simply not counted', async (t) => {
  const app = await gatewayApp(t, (app) => { app.mount(listBooks) })
  const res = await app.inject({ url: '/books', headers: { authorization: `Bearer ${KEY}`, 'x-audience': 'agent' } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().items.length, 0)
})
