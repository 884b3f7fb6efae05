// A page's `items` publish the mount's ceiling as `maxItems`: the largest page a route serves is
// exactly that many items, valid against the document, and one item more would not be.
import t from 'tap'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import { DEMO_INVOICES } from '../../demo/catalogue.js'
import { AGENT, buildApp } from '../helpers/app.js'
import { documentedResponses, type OpenApiDocument } from '../helpers/openapi.js'

/** Each paged route of the demo and its mount's ceiling (routes/*): the most items one page holds. */
const CEILINGS: Readonly<Record<string, number>> = { '/books': 50, '/books/with-authors': 50, '/invoices': 50, '/ledger': 500 }

const { app } = await buildApp(t)
// More rows than any ceiling: a limit far above it is then served at the ceiling, a page full.
await app.store.db.insertInto('books').values(Array.from({ length: 60 }, (_, index) => ({
  id: 100 + index, title: `Book ${100 + index}`, status: 'published' as const, price: '12.50', published_on: null, author_id: 1
}))).execute()
await app.store.db.insertInto('invoices').values(Array.from({ length: 60 }, (_, index) => ({
  ...DEMO_INVOICES[1], id: 100 + index, number: `INV-${100 + index}`, etag: `W/${100 + index}`
}))).execute()
const document = (await app.inject({ url: '/openapi.json' })).json() as OpenApiDocument
const documented = documentedResponses(document)

/** The `items` schema of a route's agent page, as published (references inlined). */
function itemsOf (path: string): { maxItems?: number } {
  const page = documented.schema(path, 'get', 200, AGENT_MEDIA_TYPE) as { properties: { items: { maxItems?: number } } }
  return page.properties.items
}

t.test('every paged route publishes its ceiling as its items\' maxItems', async (t) => {
  const paged = documented.operations().filter(({ path }) => (documented.schema(path, 'get', 200, AGENT_MEDIA_TYPE) as { properties?: { items?: unknown } } | undefined)?.properties?.items !== undefined)
  t.strictSame(paged.map(({ path }) => path).sort(), Object.keys(CEILINGS).sort(), 'the paged routes')
  for (const [path, ceiling] of Object.entries(CEILINGS)) t.equal(itemsOf(path).maxItems, ceiling, path)
})

t.test('a page at the ceiling holds maxItems items and validates; one item more does not', async (t) => {
  for (const [path, ceiling] of Object.entries(CEILINGS)) {
    const res = await app.inject({ url: `${path}?limit=100000`, headers: AGENT })
    t.equal(res.statusCode, 200, path)
    const body = res.json() as { items: unknown[] }
    t.equal(body.items.length, ceiling, `${path}: a limit above the ceiling is served at it`)
    const validate = documented.validator(path, 'get', 200, AGENT_MEDIA_TYPE)
    t.ok(validate?.(body), `${path}: the full page matches the document`, { errors: validate?.errors })
    t.notOk(validate?.({ ...body, items: [...body.items, body.items[0]] }), `${path}: a page one item over is refused`)
  }
})
