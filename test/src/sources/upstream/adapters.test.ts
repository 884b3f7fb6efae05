// Every upstream paging style, mounted through the public API and walked to its end: by a plain
// client (the bare array is the upstream's rows, in order) and by an agent over HTTP and MCP (pages,
// clamps, offsets off the upstream's page boundaries), every body checked against the published
// document; the totals are exact where the upstream says them and absent where it does not.
import type { AddressInfo } from 'node:net'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import Fastify from 'fastify'
import t from 'tap'
import { Product, PRODUCT_FIELDS } from '../../../../routes/products/product.js'
import { productAt, startDemoUpstream } from '../../../../demo/upstream.js'
import {
  cursorPaging, gateway, offsetPaging, pageLinkPaging, serverOptions, singlePaging, unrestricted, upstreamClient, upstreamList,
  type UpstreamPaging
} from '../../../../src/index.js'
import { documentedResponses, mediaTypeOf, type OpenApiDocument } from '../../../helpers/openapi.js'

const ROWS = 253
const upstream = await startDemoUpstream({ rows: ROWS })
t.teardown(async () => { await upstream.close() })

/** Each style on its endpoint, with an upstream page size that does not divide the rows. */
const STYLES: Array<{ name: string, path: string, paging: UpstreamPaging, totals: 'exact' | 'absent' }> = [
  { name: 'listByPage', path: '/page/products', paging: pageLinkPaging({ pageSize: 30 }), totals: 'absent' },
  { name: 'listByOffset', path: '/offset/products', paging: offsetPaging({ pageSize: 40, total: { header: 'X-Total-Count' } }), totals: 'exact' },
  { name: 'listByOffsetBody', path: '/offset-body/products', paging: offsetPaging({ pageSize: 25, total: { field: 'total' }, items: 'results' }), totals: 'exact' },
  { name: 'listByCursor', path: '/cursor/products', paging: cursorPaging({ pageSize: 17 }), totals: 'absent' },
  { name: 'listWhole', path: '/all/products', paging: singlePaging(), totals: 'exact' }
]

const app = Fastify({ ...serverOptions('silent'), logger: false })
t.teardown(async () => { await app.close() })
await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [], loadShedding: { maxEventLoopDelay: 0 } })
const client = upstreamClient({ origin: upstream.url })
app.addHook('onClose', async () => { await client.close() })
await app.register(async (scope) => {
  for (const style of STYLES) {
    scope.mount({
      kind: 'list',
      name: style.name,
      url: `/${style.name}`,
      summary: `Products paged upstream by ${style.paging.style}`,
      declaration: Product,
      schemaName: `Product${style.totals === 'exact' ? 'Counted' : 'Uncounted'}`,
      source: upstreamList({ client, declaration: Product, fields: PRODUCT_FIELDS, path: style.path, paging: style.paging }),
      permissions: [unrestricted],
      paging: { style: 'offset', unit: 'products', ceiling: 60, defaultLimit: 20 }
    })
  }
})
await app.listen({ host: '127.0.0.1', port: 0 })
const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
const documented = documentedResponses(app.swagger() as unknown as OpenApiDocument)

const AGENT = { 'x-audience': 'agent' }
const allSkus = Array.from({ length: ROWS }, (_, i) => productAt(i + 1).sku)

/** GETs `url`, checked against what the document publishes for its answer. */
async function get (url: string, headers: Record<string, string> = {}): Promise<{ status: number, body: any }> {
  const res = await app.inject({ url, headers })
  const validate = documented.validator(url.split('?')[0], 'get', res.statusCode, mediaTypeOf(res.headers['content-type']))
  if (validate === undefined || !validate(res.json())) throw new Error(`${url}: not as published: ${JSON.stringify(validate?.errors)}`)
  return { status: res.statusCode, body: res.json() }
}

/** Walks a list by next_offset from `start`: the SKUs seen, and every page. */
async function walk (read: (offset: number) => Promise<any>, start = 0): Promise<{ skus: string[], pages: any[] }> {
  const skus: string[] = []
  const pages: any[] = []
  let offset: number | undefined = start
  while (offset !== undefined) {
    const page = await read(offset)
    pages.push(page)
    skus.push(...page.items.map((item: { sku: string }) => item.sku))
    offset = page.next_offset
  }
  return { skus, pages }
}

for (const style of STYLES) {
  t.test(`${style.paging.style} paging (${style.path})`, async (t) => {
    const plain = await get(`/${style.name}`)
    t.equal(plain.status, 200)
    t.strictSame(plain.body.map((product: { sku: string }) => product.sku), allSkus, 'the plain array is every row, in order')
    t.equal(plain.body[0].price, productAt(1).pricing.amount_cents, 'the mapped field')

    for (const [limit, start] of [[20, 0], [60, 7], [13, 29]]) {
      const { skus, pages } = await walk(async (offset) => (await get(`/${style.name}?offset=${offset}&limit=${limit}`, AGENT)).body, start)
      t.strictSame(skus, allSkus.slice(start), `limit ${limit} from ${start}: every row once, in order`)
      t.ok(pages.every((page) => page.has_more === ('next_offset' in page)))
      t.ok(pages.every((page) => style.totals === 'exact' ? page.total_products === ROWS : !('total_products' in page)), `totals ${style.totals}`)
      t.notOk(JSON.stringify(pages).includes('warehouse_bin'), 'nothing hidden reaches an agent')
    }
    const clamped = (await get(`/${style.name}?limit=500`, AGENT)).body
    t.match(clamped, { returned: 60, limit: 60, limit_clamped: true, has_more: true })
    const past = (await get(`/${style.name}?offset=400`, AGENT)).body
    t.match(past, { items: [], has_more: false, returned: 0 })
  })
}

t.test('the published envelopes say which lists have a total', async (t) => {
  const schemas = (app.swagger() as unknown as OpenApiDocument).components?.schemas as Record<string, { required: string[], properties: object }>
  t.ok(schemas.ProductCountedPage.required.includes('total_products'))
  t.notOk('total_products' in schemas.ProductUncountedPage.properties)
  t.notOk(schemas.ProductUncountedPage.required.includes('total_products'))
})

t.test('over MCP: a cursor list walked to its end by the envelope alone, the same pages as HTTP', async (t) => {
  const mcp = new Client({ name: 'upstream-tests', version: '1.0.0' })
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)))
  t.teardown(async () => { await mcp.close() })
  const { skus, pages } = await walk(async (offset) => {
    const result = await mcp.callTool({ name: 'listByCursor', arguments: { offset, limit: 45 } })
    t.notOk(result.isError)
    return result.structuredContent
  })
  t.strictSame(skus, allSkus)
  t.strictSame(pages[1], (await get('/listByCursor?offset=45&limit=45', AGENT)).body)
})
