// Generated walks (fast-check) of upstream lists through the core, against the demo upstream on
// 127.0.0.1: any upstream paging style and page size, any agent limit (over the ceiling too) and
// any starting offset. Walking by next_offset alone sees every row from the start exactly once, in
// order; every envelope validates against the schema the mount publishes, says a total only where
// the upstream gives one, and holds no field the record hides. A plain walk is every row.
import fc from 'fast-check'
import t from 'tap'
import { Product, PRODUCT_FIELDS } from '../../routes/products/product.js'
import { compileMount, cursorPaging, offsetPaging, pageLinkPaging, singlePaging, unrestricted, upstreamClient, upstreamList, type UpstreamPaging } from '../../src/index.js'
import { productAt, startDemoUpstream } from '../../demo/upstream.js'
import { createAjv } from '../helpers/ajv.js'
import { propertyRuns, propertySeed } from '../helpers/fast-check.js'
import { plainText } from '../helpers/plain-body.js'

const SEED = propertySeed(7_2026)
const NUM_RUNS = propertyRuns(60)
const ROWS = 97
const CEILING = 30

t.setTimeout(180_000)
t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs (FC_RUNS)`)

const upstream = await startDemoUpstream({ rows: ROWS })
const client = upstreamClient({ origin: upstream.url })
t.teardown(async () => {
  await client.close()
  await upstream.close()
})
const ajv = createAjv()
const skus = Array.from({ length: ROWS }, (_, i) => productAt(i + 1).sku)

interface Envelope {
  items: Array<{ sku: string }>
  returned: number
  total_products?: number
  next_offset?: number
}

const STYLES: Record<string, { path: string, paging: (pageSize: number) => UpstreamPaging }> = {
  page: { path: '/page/products', paging: (pageSize) => pageLinkPaging({ pageSize }) },
  offset: { path: '/offset/products', paging: (pageSize) => offsetPaging({ pageSize, total: { header: 'X-Total-Count' } }) },
  offsetBody: { path: '/offset-body/products', paging: (pageSize) => offsetPaging({ pageSize, total: { field: 'total' }, items: 'results' }) },
  cursor: { path: '/cursor/products', paging: (pageSize) => cursorPaging({ pageSize }) },
  none: { path: '/all/products', paging: () => singlePaging() }
}

function resourceOf (style: string, pageSize: number): ReturnType<typeof compileMount> {
  const { path, paging } = STYLES[style]
  return compileMount({
    kind: 'list',
    name: 'listProducts',
    url: '/products',
    summary: 'Products',
    declaration: Product,
    source: upstreamList({ client, declaration: Product, fields: PRODUCT_FIELDS, path, paging: paging(pageSize) }),
    permissions: [unrestricted],
    paging: { style: 'offset', unit: 'products', ceiling: CEILING }
  }, { timeZone: 'UTC' })
}

t.test('an agent walking by next_offset sees every row from its start once, in order, every page as published', async (t) => {
  await fc.assert(fc.asyncProperty(
    fc.constantFrom(...Object.keys(STYLES)),
    fc.integer({ min: 1, max: 40 }),
    fc.integer({ min: 1, max: CEILING + 10 }),
    fc.integer({ min: 0, max: ROWS + 3 }),
    async (style, pageSize, limit, start) => {
      const resource = resourceOf(style, pageSize)
      const validate = ajv.compile(resource.bodies.agent)
      const seen: string[] = []
      let offset: number | undefined = start
      let pages = 0
      while (offset !== undefined) {
        const served = await resource.serve({ audience: 'agent', query: { offset: String(offset), limit: String(limit) }, params: {} })
        const page = (served as { body: Envelope }).body
        if (!validate(page)) throw new Error(`${style}: an envelope not as published: ${JSON.stringify(validate.errors)}`)
        const exact = style !== 'page' && style !== 'cursor'
        if (exact !== ('total_products' in page) || (exact && page.total_products !== ROWS)) throw new Error(`${style}: total ${String(page.total_products)}`)
        if (JSON.stringify(page).includes('warehouse_bin')) throw new Error('a hidden field reached an agent')
        if (page.returned > Math.min(limit, CEILING)) throw new Error(`${style}: ${String(page.returned)} rows for a limit of ${limit}`)
        seen.push(...page.items.map((item) => item.sku))
        offset = page.next_offset
        if (++pages > ROWS + 2) throw new Error(`${style}: the walk does not end`)
      }
      return JSON.stringify(seen) === JSON.stringify(skus.slice(start))
    }
  ), { seed: SEED, numRuns: NUM_RUNS })
  t.pass(`${NUM_RUNS} walks`)
})

t.test('a plain walk is every row, whatever the upstream page size', async (t) => {
  await fc.assert(fc.asyncProperty(fc.constantFrom(...Object.keys(STYLES)), fc.integer({ min: 1, max: 100 }), async (style, pageSize) => {
    const resource = resourceOf(style, pageSize)
    const served = await resource.serve({ audience: 'plain', query: {}, params: {} })
    return JSON.stringify((JSON.parse(await plainText(served.body)) as Array<{ sku: string }>).map((product) => product.sku)) === JSON.stringify(skus)
  }), { seed: SEED, numRuns: Math.ceil(NUM_RUNS / 3) })
  t.pass('every plain walk whole')
})
