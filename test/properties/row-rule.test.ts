// No caller ever receives another's row or total: any rows of a few tenants, and any sequence of
// calls by any of them (and by a caller of no tenant), to both audiences, filtered or not, sorted
// or not, at any window, answered through one set of kept answers shared by them all, from an array
// in memory and from SQLite. Each answer holds exactly the rows its caller's claim selects.
import { Readable } from 'node:stream'
import fc from 'fast-check'
import type { Kysely } from 'kysely'
import t from 'tap'
import Type from 'typebox'
import { compileMount, type Resource } from '../../src/core/index.js'
import { servedCache, type ServedCache } from '../../src/core/served-cache.js'
import { choices, declareRecord, handle, hidden, label } from '../../src/declare/index.js'
import { signedIn, type Principal } from '../../src/permissions.js'
import { arraySource, kyselySource, type ListSource } from '../../src/sources/index.js'
import { openStore } from '../../src/store/index.js'
import { propertyRuns, propertySeed } from '../helpers/fast-check.js'

const SEED = propertySeed(30_2026)
const NUM_RUNS = propertyRuns(40)

t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs (FC_RUNS)`)

const Order = declareRecord('Order', Type.Object({
  id: handle(Type.Integer()),
  number: label(Type.String()),
  tenant: hidden(Type.String()),
  status: choices({ open: 'Open', paid: 'Paid' }),
  total: Type.Integer()
}))

interface Row { id: number, number: string, tenant: string, status: 'open' | 'paid', total: number }

const TENANTS = ['acme', 'globex', 'initech'] as const

const rowsArbitrary = fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { maxLength: 40 }).chain((ids) => fc.tuple(...ids.map((id) => fc.record({
  id: fc.constant(id),
  number: fc.constant(`N-${id}`),
  tenant: fc.constantFrom(...TENANTS),
  status: fc.constantFrom('open' as const, 'paid' as const),
  total: fc.integer({ min: 0, max: 5 })
}))))

interface CallCase {
  readonly tenant: string
  readonly audience: 'plain' | 'agent'
  readonly offset: number
  readonly limit: number
  readonly status?: 'open' | 'paid'
  readonly sort?: 'total' | '-total'
}

const callArbitrary: fc.Arbitrary<CallCase> = fc.record({
  // A tenant that holds no row is a caller like any other: it gets none, and a total of 0.
  tenant: fc.constantFrom(...TENANTS, 'hooli'),
  audience: fc.constantFrom('plain' as const, 'agent' as const),
  offset: fc.integer({ min: 0, max: 45 }),
  limit: fc.integer({ min: 1, max: 12 }),
  status: fc.option(fc.constantFrom('open' as const, 'paid' as const), { nil: undefined }),
  sort: fc.option(fc.constantFrom('total' as const, '-total' as const), { nil: undefined })
}, { requiredKeys: ['tenant', 'audience', 'offset', 'limit'] })

function mountOf (source: ListSource<any, Row>, responses: ServedCache): Resource {
  return compileMount({
    kind: 'list',
    name: 'listOrders',
    url: '/orders',
    summary: 'Orders',
    declaration: Order,
    permissions: [signedIn],
    source,
    paging: { style: 'offset', unit: 'orders', ceiling: 12 },
    filters: { status: 'equals' },
    sort: { fields: ['total'] },
    rowRule: { tenant: { claim: 'org_id' } }
  }, { timeZone: 'UTC', responses })
}

/** The rows `call` selects, in the order it is served: by id, or by total then id. */
function expected (rows: readonly Row[], call: CallCase): Row[] {
  const selected = rows.filter((row) => row.tenant === call.tenant && (call.status === undefined || row.status === call.status)).toSorted((a, b) => a.id - b.id)
  if (call.sort === undefined) return selected
  const sign = call.sort === 'total' ? 1 : -1
  return selected.toSorted((a, b) => sign * (a.total - b.total) || a.id - b.id)
}

/** Serves `call` as its tenant, and says what was wrong with the answer, if anything. */
async function checked (resource: Resource, rows: readonly Row[], call: CallCase): Promise<string | undefined> {
  const principal: Principal = { keyId: call.tenant, scopes: 'all', claims: { org_id: call.tenant } }
  const query: Record<string, string> = {
    ...(call.audience === 'agent' ? { offset: String(call.offset), limit: String(call.limit) } : {}),
    ...(call.status === undefined ? {} : { status: call.status }),
    ...(call.sort === undefined ? {} : { sort: call.sort })
  }
  const served = await resource.serve({ audience: call.audience, query, params: {}, principal })
  const want = expected(rows, call)
  const owner = new Map(rows.map((row) => [row.id, row.tenant]))
  if (call.audience === 'plain') {
    const { body } = served as { body: Readable | Buffer }
    const list = JSON.parse(Buffer.isBuffer(body) ? body.toString() : (await body.toArray()).join('')) as Row[]
    if (list.some((row) => row.tenant !== call.tenant)) return 'a plain list holds another tenant\'s row'
    if (JSON.stringify(list.map((row) => row.id)) !== JSON.stringify(want.map((row) => row.id))) return 'a plain list is not the tenant\'s rows'
    return undefined
  }
  const { body } = served as { body: { items: Array<{ id: number }>, total_orders: number } }
  if (body.items.some((item) => owner.get(item.id) !== call.tenant)) return 'a page holds another tenant\'s row'
  if (body.total_orders !== want.length) return `the total is ${body.total_orders}, not the tenant's ${want.length}`
  const page = want.slice(call.offset, call.offset + call.limit).map((row) => row.id)
  if (JSON.stringify(body.items.map((item) => item.id)) !== JSON.stringify(page)) return 'a page is not the tenant\'s window'
  return undefined
}

t.test('every answer, kept or read, holds exactly its caller\'s rows and total', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(() => store.close())
  // Tables made per input, which the demo's database type does not know.
  const db = store.db as unknown as Kysely<any>
  let table = 0
  let answers = 0
  await fc.assert(fc.asyncProperty(rowsArbitrary, fc.array(callArbitrary, { minLength: 1, maxLength: 12 }), async (rows, calls) => {
    // A table of its own per input: the store's version and the query name its rows.
    const name = `orders_${++table}`
    await db.schema.createTable(name)
      .addColumn('id', 'integer', (column) => column.primaryKey())
      .addColumn('number', 'text', (column) => column.notNull())
      .addColumn('tenant', 'text', (column) => column.notNull())
      .addColumn('status', 'text', (column) => column.notNull())
      .addColumn('total', 'integer', (column) => column.notNull())
      .execute()
    if (rows.length > 0) await db.insertInto(name).values(rows).execute()
    // One cache for both sources and every caller: a kept answer reaching the wrong caller would show.
    const responses = servedCache({ maxBytes: 1 << 20 })
    const resources = [
      mountOf(arraySource(rows.toSorted((a, b) => a.id - b.id)), responses),
      mountOf(kyselySource(store, () => db.selectFrom(name).selectAll().orderBy('id')), responses)
    ]
    // Each call three times: the second keeps its answer, the third may be served it.
    for (const call of [...calls, ...calls, ...calls]) {
      for (const resource of resources) {
        const wrong = await checked(resource, rows, call)
        // Thrown, so that fast-check shrinks the input to the smallest that shows it.
        if (wrong !== undefined) throw new Error(`${wrong}: ${JSON.stringify(call)}`)
        answers++
      }
    }
  }), { seed: SEED, numRuns: NUM_RUNS })
  // Each input makes at least one call three times, from both sources.
  t.ok(answers >= NUM_RUNS * 6, `${answers} answers checked`)
})
