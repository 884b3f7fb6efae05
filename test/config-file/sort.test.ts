// A list's sort declared in a file, served: `"sort": { "fields": [...], "default": ... }` over a
// table (a renamed column, seeking by the key), the argument published in OpenAPI (a closed enum)
// and in the MCP tool's input schema, every sorted page valid against the published schema, a
// kept answer or a validator never served for another order, and the refusals pointed at the
// value in the file.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { DeclarationFileError } from '../../src/config-file/errors.js'
import { AGENT, AUTH } from '../helpers/app.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'
import { documentedResponses, type OpenApiDocument } from '../helpers/openapi.js'

const dir = mkdtempSync(join(tmpdir(), 'sort-'))

const BOOK = {
  fields: {
    id: { type: 'integer', handle: true, description: 'The book.' },
    title: { type: 'string', label: true, description: 'Its title.' },
    published: { type: 'date', nullable: true, description: 'When it was published, if it was.' },
    price: { type: 'decimal', description: 'Its price.' }
  }
}

/** A file of one list of the demo's books, with `sort` (and more) on its mount. */
function fileWith (mount: object, more: object = { sources: { books: { table: 'books', orderBy: 'id', seek: true, fields: { published: 'published_on' } } } }): string {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.gateway.json`)
  writeFileSync(path, JSON.stringify({
    records: { Book: BOOK },
    ...more,
    mounts: [{ kind: 'list', name: 'listBooks', url: '/books', summary: 'The books', record: 'Book', source: 'books', permissions: ['signed-in'], paging: { style: 'offset', unit: 'books', ceiling: 2 }, ...mount }]
  }, null, 2))
  return path
}

/** What building the file's app refuses, each problem without its file, line and column. */
async function problems (path: string): Promise<string[]> {
  try {
    await buildDeclaredApp(t, path)
  } catch (error) {
    if (error instanceof DeclarationFileError) return error.lines.map((line) => line.replace(/^[^:]+:\d+:\d+: /, ''))
    throw error
  }
  throw new Error('the file was accepted')
}

const app = await buildDeclaredApp(t, fileWith({ sort: { fields: ['title', 'published'], default: '-published' } }))
const document = (await app.inject({ url: '/openapi.json' })).json() as OpenApiDocument
const documented = documentedResponses(document)

const ids = (body: { items: Array<{ id: number }> }): number[] => body.items.map((item) => item.id)

/** Every page of `/books?<query>` as an agent, each checked against the published schema, walked by next_offset. */
async function walk (query: string): Promise<number[]> {
  const seen: number[] = []
  let offset: number | undefined = 0
  while (offset !== undefined) {
    const res: { statusCode: number, json: () => any } = await app.inject({ url: `/books?${query}&offset=${offset}`, headers: AGENT })
    t.equal(res.statusCode, 200)
    const validate = documented.validator('/books', 'get', 200, 'application/vnd.audience-gateway.agent+json')
    t.ok(validate?.(res.json()), `${query} at ${offset}: valid against the published schema`)
    const body = res.json() as { items: Array<{ id: number }>, next_offset?: number, hint?: string }
    if (body.next_offset !== undefined) t.equal(/with the same sort/.test(body.hint ?? ''), query.includes('sort='), 'the hint names the sort sent')
    seen.push(...ids(body))
    offset = body.next_offset
  }
  return seen
}

t.test('published: a closed enum in OpenAPI, described', async (t) => {
  const parameter = document.paths['/books'].get.parameters?.find((each) => each.name === 'sort')
  t.match(parameter, { in: 'query', required: false, schema: { type: 'string', enum: ['title', '-title', 'published', '-published'] } })
  t.match(JSON.stringify(parameter), /Ties keep the list's own order \(by its key\)/)
  t.match(JSON.stringify(parameter), /Default: -published/)
})

t.test('an agent walks any order page by page; a plain client gets the same order whole', async (t) => {
  const orders: Record<string, number[]> = { 'sort=title': [3, 1, 2], 'sort=-title': [2, 1, 3], 'sort=published': [2, 3, 1], 'sort=-published': [1, 3, 2], 'limit=2': [1, 3, 2] }
  for (const [query, expected] of Object.entries(orders)) {
    t.strictSame(await walk(query), expected, query)
    const plain = await app.inject({ url: `/books?${query.replace('limit=2', '')}`, headers: AUTH })
    t.strictSame(plain.json().map((book: { id: number }) => book.id), expected, `${query}: plain`)
  }
})

t.test('a kept page and a plain list\'s validator are each order\'s own', async (t) => {
  const first = await app.inject({ url: '/books?sort=title&limit=1', headers: AGENT })
  const again = await app.inject({ url: '/books?sort=-title&limit=1', headers: AGENT })
  t.strictSame([ids(first.json()), ids(again.json())], [[3], [2]])
  const byTitle = await app.inject({ url: '/books?sort=title', headers: AUTH })
  const byDefault = await app.inject({ url: '/books', headers: AUTH })
  t.not(byTitle.headers.etag, byDefault.headers.etag)
  const held = await app.inject({ url: '/books?sort=-title', headers: { ...AUTH, 'if-none-match': String(byTitle.headers.etag) } })
  t.equal(held.statusCode, 200, 'holding the list by title is not holding it by -title')
  t.strictSame(held.json().map((book: { id: number }) => book.id), [2, 1, 3])
  t.equal((await app.inject({ url: '/books?sort=title', headers: { ...AUTH, 'if-none-match': String(byTitle.headers.etag) } })).statusCode, 304)
})

t.test('a sort that is none of the values is a 400 naming it', async (t) => {
  const res = await app.inject({ url: '/books?sort=price', headers: AGENT })
  t.equal(res.statusCode, 400)
  t.strictSame(Object.keys(res.json().errors), ['sort'])
})

t.test('the file\'s refusals point at the value', async (t) => {
  t.strictSame(await problems(fileWith({ sort: { fields: ['title', 'price'] } })), [
    '/mounts/0/sort/fields/1: Route \'listBooks\': the sort on "price" is on decimal text, which orders as text (9.99 after 10.00), not as its numbers.'
  ])
  t.strictSame(await problems(fileWith({ sort: { fields: ['title'], default: 'published' } })), [
    '/mounts/0/sort/default: Route \'listBooks\': its default sort "published" is none of title, -title.'
  ])
  t.strictSame(await problems(fileWith({ sort: { fields: [] } })), ['/mounts/0/sort/fields: must NOT have fewer than 1 items; got an array'], 'the schema says so first')
  t.strictSame(await problems(fileWith({ sort: { fields: ['title'], by: 'title' } })), ['/mounts/0/sort/by: is not a key of this object; expected one of: fields, default'])
  const upstream = await problems(fileWith({ sort: { fields: ['title'] } }, { upstreams: { shop: { origin: 'http://127.0.0.1:9' } }, sources: { books: { upstream: 'shop', path: '/books', paging: { style: 'single' } } } }))
  t.strictSame(upstream, ['/mounts/0/sort: Route \'listBooks\': its source is read a window at a time (an upstream API\'s), in the upstream\'s own order, and cannot sort; declare no sort.'])
})
