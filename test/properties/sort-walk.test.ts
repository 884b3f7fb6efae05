// Any sort, walked page by page by the envelope's next_offset (sending again what the hint names),
// yields every row exactly once, in the order of the plain list sorted the same way: from an array
// in memory, and from SQLite seeking by (column, key) with anchors close enough for deep pages.
import fc from 'fast-check'
import t from 'tap'
import Type from 'typebox'
import { compileMount, type Resource } from '../../src/core/index.js'
import { declareRecord, handle, label, Nullable } from '../../src/declare/index.js'
import { signedIn } from '../../src/permissions.js'
import { arraySource, kyselySource, type ListSource } from '../../src/sources/index.js'
import { openStore } from '../../src/store/index.js'
import { propertyRuns, propertySeed } from '../helpers/fast-check.js'
import { plainText } from '../helpers/plain-body.js'

const SEED = propertySeed(13_2026)
const NUM_RUNS = propertyRuns(60)

t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs (FC_RUNS)`)

const Item = declareRecord('Item', Type.Object({
  id: handle(Type.Integer()),
  name: label(Type.String()),
  rank: Nullable(Type.Integer()),
  day: Nullable(Type.String({ format: 'date' }))
}))

interface Row { id: number, name: string, rank: number | null, day: string | null }

const SORTS = ['name', '-name', 'rank', '-rank', 'day', '-day'] as const

/** Rows with few distinct values (many ties) and NULLs, ids unique but not in insertion order. */
const rowsArbitrary = fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 60 }).chain((ids) => fc.tuple(...ids.map((id) => fc.record({
  id: fc.constant(id),
  name: fc.constantFrom('a', 'b', 'B', 'ab', 'é'),
  rank: fc.option(fc.integer({ min: -2, max: 2 }), { nil: null }),
  day: fc.option(fc.constantFrom('2026-01-01', '2025-12-31', '2026-02-01'), { nil: null })
}))))

function mountOf (source: ListSource<any, Row>): Resource {
  const paging = { style: 'offset', unit: 'items', ceiling: 7 } as const
  return compileMount({ kind: 'list', name: 'listItems', url: '/items', summary: 'Items', declaration: Item, permissions: [signedIn], source, paging, sort: { fields: ['name', 'rank', 'day'] } }, { timeZone: 'UTC' })
}

/** Every page as an agent from offset 0, by next_offset, the sort sent again as the hint says. */
async function walked (resource: Resource, sort: string, limit: number): Promise<number[]> {
  const seen: number[] = []
  let offset: number | undefined = 0
  while (offset !== undefined) {
    const body = (await resource.serve({ audience: 'agent', query: { sort, limit: String(limit), offset: String(offset) }, params: {} })).body as { items: Array<{ id: number }>, next_offset?: number, hint?: string }
    if (body.next_offset !== undefined && !body.hint?.includes('with the same sort')) throw new Error(`the hint does not name the sort: ${body.hint}`)
    seen.push(...body.items.map((item) => item.id))
    offset = body.next_offset
  }
  return seen
}

async function plain (resource: Resource, sort: string): Promise<number[]> {
  const { body } = await resource.serve({ audience: 'plain', query: { sort }, params: {} })
  return (JSON.parse(await plainText(body)) as Array<{ id: number }>).map((row) => row.id)
}

t.test('an array source: every row once, in the plain list\'s order', async (t) => {
  await fc.assert(fc.asyncProperty(rowsArbitrary, fc.constantFrom(...SORTS), fc.integer({ min: 1, max: 9 }), async (rows, sort, limit) => {
    const resource = mountOf(arraySource(rows.toSorted((a, b) => a.id - b.id)))
    const expected = await plain(resource, sort)
    t.strictSame(expected.toSorted((a, b) => a - b), rows.map((row) => row.id).toSorted((a, b) => a - b), 'the plain list holds every row once')
    t.strictSame(await walked(resource, sort, limit), expected)
  }), { seed: SEED, numRuns: NUM_RUNS })
})

t.test('SQLite, seeking by (column, key) from anchors every 3 rows: every row once, in the plain list\'s order', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(() => store.close())
  const db = store.db.withTables<{ items: Row }>()
  await db.schema.createTable('items').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text').addColumn('rank', 'integer').addColumn('day', 'text').execute()
  const resource = mountOf(kyselySource(store, () => db.selectFrom('items').selectAll().orderBy('id'), { keyset: { column: 'id', every: 3 } }))
  await fc.assert(fc.asyncProperty(rowsArbitrary, fc.constantFrom(...SORTS), fc.integer({ min: 1, max: 9 }), async (rows, sort, limit) => {
    await db.deleteFrom('items').execute()
    if (rows.length > 0) await db.insertInto('items').values(rows).execute()
    const expected = await plain(resource, sort)
    t.strictSame(expected.toSorted((a, b) => a - b), rows.map((row) => row.id).toSorted((a, b) => a - b), 'the plain list holds every row once')
    t.strictSame(await walked(resource, sort, limit), expected)
  }), { seed: SEED, numRuns: NUM_RUNS })
})
