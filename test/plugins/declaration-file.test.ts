// The plugin serving a file's mounts: what the core refuses when a mount is served (a paging style
// its source cannot have, one component name for two schemas) is refused naming the mount in the
// file, every such problem at once, and the upstreams' clients are closed with the app.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import Fastify from 'fastify'
import t from 'tap'
import declarationFile from '../../plugins/declaration-file.js'
import { DeclarationFileError } from '../../src/config-file/errors.js'
import { loadDeclarationFile } from '../../src/config-file/loader.js'
import gateway from '../../src/gateway.js'
import { setUpDemo } from '../../demo/catalogue.js'
import { KEY } from '../helpers/app.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'

const BOOK = { fields: { id: { type: 'integer', handle: true }, title: { type: 'string', label: true }, author_id: { type: 'integer', hidden: true } } }
const list = (extra: object): object => ({ kind: 'list', summary: 'Books', record: 'Book', source: 'books', permissions: ['unrestricted'], ...extra })

async function started (declarations: object): Promise<unknown> {
  const app = Fastify({ logger: false })
  t.teardown(async () => { await app.close() })
  await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], setUp: setUpDemo })
  try {
    await app.register(declarationFile, { file: loadDeclarationFile('g.json', JSON.stringify(declarations, null, 2)), env: {} })
    await app.ready()
  } catch (error) {
    return error
  }
}

t.test('what the core refuses is refused where the mount is in the file', async (t) => {
  const error = await started({
    records: { Book: BOOK, Product: { fields: { sku: { type: 'string' } } } },
    upstreams: { api: { origin: 'http://127.0.0.1:9' } },
    sources: { books: { table: 'books', orderBy: 'id' }, products: { upstream: 'api', path: '/p', paging: { style: 'single' } } },
    mounts: [
      list({ name: 'listBooks', url: '/books' }),
      list({ name: 'listAuthors', url: '/authors', overrides: { author_id: { handle: true } } }),
      list({ name: 'listProducts', url: '/products', record: 'Product', source: 'products', paging: { style: 'page' } })
    ]
  })
  t.type(error, DeclarationFileError)
  t.match((error as DeclarationFileError).lines, [
    /^g\.json:\d+:\d+: \/mounts\/1: GET \/authors publishes a schema named 'BookForAgents' that differs from the one an earlier route published under that name: give its mount its own `schemaName` \(two mounts of one record need one whenever their overrides, or their lists' paging styles, differ\)\.$/,
    /^g\.json:\d+:\d+: \/mounts\/2: Route 'listProducts': its source is read a window at a time, without counting first; page it with the offset style\.$/
  ])
})

t.test('a file the core accepts is served: a list, and a text held in a column', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(async () => { await app.close() })
  await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], setUp: setUpDemo })
  await app.register(declarationFile, {
    file: loadDeclarationFile('g.json', JSON.stringify({
      records: { Book: BOOK },
      sources: { books: { table: 'books', orderBy: 'id' } },
      mounts: [
        list({ name: 'listBooks', url: '/books' }),
        { kind: 'text', name: 'getTitle', url: '/books/:id/title', summary: 'A title', source: 'books', text: 'title', params: { id: { type: 'integer' } }, permissions: ['unrestricted'] }
      ]
    })),
    env: {}
  })
  await app.ready()
  t.equal((await app.inject('/books')).json().length, 3)
  const plain = await app.inject('/books/3/title')
  t.equal(plain.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(plain.body, 'A Wizard of Earthsea\n')
  t.match((await app.inject({ url: '/books/3/title', headers: { 'x-audience': 'agent' } })).json(), { lines: ['A Wizard of Earthsea'], total_lines: 1, has_more: false })
  t.equal((await app.inject('/books/9/title')).statusCode, 404)
})

t.test('a file that reads no table opens no database: the one DATABASE_URL names is not required', async (t) => {
  const dir = t.testdir({
    'upstream.json': JSON.stringify({
      records: { Thing: { fields: { id: { type: 'integer' } } } },
      upstreams: { api: { origin: 'http://127.0.0.1:9' } },
      sources: { things: { upstream: 'api', path: '/things', paging: { style: 'single' } } },
      mounts: [{ kind: 'list', name: 'listThings', url: '/things', summary: 'Things', record: 'Thing', source: 'things', permissions: ['unrestricted'], paging: { style: 'offset', unit: 'things' } }]
    })
  })
  const missing = join(dir, 'no', 'such.sqlite')
  const app = await buildDeclaredApp(t, join(dir, 'upstream.json'), { databaseUrl: missing, createDatabase: false, setUp: undefined })
  t.equal((await app.inject({ url: '/openapi.json' })).statusCode, 200)
  t.notOk(existsSync(join(dir, 'no')), 'nothing created')
})
