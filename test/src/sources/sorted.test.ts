// A caller's sort in SQL, on SQLite and PostgreSQL alike: ordered by the column first, a NULL below
// every value (first ascending, last descending), ties in the query's own order; the count is the
// unsorted one; every seeking slice equals the OFFSET slice of the same sort; the stream and the
// plain list's name follow the sort.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { kyselySource, type Sort } from '../../../src/sources/index.js'
import type { Store } from '../../../src/store/index.js'
import { onBothStores, whileUnwritten } from '../../helpers/services.js'
import { propertyRuns, propertySeed } from '../../helpers/fast-check.js'

type Tables = { rated: { id: number, stars: number | null, label: string | null } }

const SEED = propertySeed(11_2026)
const NUM_RUNS = propertyRuns(100)
const ROWS = 600
const EVERY = 40

t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs (FC_RUNS)`)

/** 600 rows, ids out of insertion order; stars 0..4 or NULL, labels of two letters or NULL: many ties, many NULLs. */
function rowsOf (): Array<Tables['rated']> {
  return Array.from({ length: ROWS }, (_, i) => ({
    id: ((i * 7) % ROWS) + 1,
    stars: i % 6 === 5 ? null : i % 5,
    label: i % 9 === 4 ? null : `${'abc'[i % 3]}${'xyz'[(i >> 2) % 3]}`
  }))
}

/** The order the stores must agree on, computed here: NULL lowest, then the id ascending. */
function expected (sort: Sort & { field: 'stars' | 'label' }): number[] {
  const sign = sort.direction === 'asc' ? 1 : -1
  const rank = (value: number | string | null): number | string => value ?? -Infinity
  return rowsOf().toSorted((a, b) => {
    const x = rank(a[sort.field])
    const y = rank(b[sort.field])
    if (x === y) return a.id - b.id
    return sign * (x === -Infinity ? -1 : y === -Infinity ? 1 : x < y ? -1 : 1)
  }).map((row) => row.id)
}

const SORTS = [
  { field: 'stars', direction: 'asc' },
  { field: 'stars', direction: 'desc' },
  { field: 'label', direction: 'asc' },
  { field: 'label', direction: 'desc' }
] as const

async function seeded (store: Store<any>): Promise<void> {
  const db = store.db.withTables<Tables>()
  await db.schema.createTable('rated').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('stars', 'integer').addColumn('label', 'text').execute()
  await db.insertInto('rated').values(rowsOf()).execute()
}

async function checks (t: Test, store: Store<any>, queries: string[]): Promise<void> {
  const db = store.db.withTables<Tables>()
  const all = () => db.selectFrom('rated').select(['id', 'stars', 'label']).orderBy('id')
  const seeking = kyselySource(store, all, { keyset: { column: 'id', every: EVERY } })
  const skipping = kyselySource(store, all)
  const ids = async (sort: Sort): Promise<number[]> => (await skipping.slice({}, 0, ROWS, [], sort)).map((row) => row.id)

  t.test('ordered by the column, a NULL lowest, ties by the key', async (t) => {
    t.ok(skipping.canSort?.('stars'))
    for (const sort of SORTS) t.strictSame(await ids(sort), expected(sort), `${sort.field} ${sort.direction}`)
  })

  t.test('ties keep the query\'s own order, whatever its direction; a field read from another column', async (t) => {
    const backwards = kyselySource(store, () => db.selectFrom('rated').select(['id', 'stars as rating']).orderBy('id', 'desc'), { columns: { rating: 'stars' } })
    const rows = await backwards.slice({}, 0, ROWS, [], { field: 'rating', direction: 'desc' })
    t.strictSame(rows.slice(0, 3).map((row) => row.rating), [4, 4, 4])
    const fours = rows.filter((row) => row.rating === 4).map((row) => row.id)
    t.strictSame(fours, fours.toSorted((a, b) => b - a), 'the fours by id, descending as the query orders')
    t.equal(rows.at(-1)?.rating, null, 'descending, the NULLs last')
  })

  t.test('a query without an order of its own is ordered by the sort alone', async (t) => {
    const unordered = kyselySource(store, () => db.selectFrom('rated').select(['id', 'stars']).where('id', '<=', 3))
    t.strictSame(await unordered.slice({}, 0, 9, [], { field: 'id', direction: 'desc' }), [{ id: 3, stars: 1 }, { id: 2, stars: 3 }, { id: 1, stars: 0 }])
  })

  t.test('the count is the unsorted one, counted once', async (t) => {
    const counted = kyselySource(store, all)
    let counts: number | undefined
    // Counted again, rightly, when another test file's write moves PostgreSQL's version (the cluster's) in between.
    t.ok(await whileUnwritten(store.dataVersion, async () => {
      t.equal(await counted.count({}, []), ROWS)
      queries.length = 0
      t.equal(await counted.count({}, []), ROWS)
      counts = queries.filter((text) => /count\(\*\)/.test(text)).length
    }), 'two counts with nothing written between them')
    t.equal(counts, 0, 'remembered: the sort is no part of a count')
  })

  t.test('any seeking slice of any sort is the OFFSET slice, filtered or not', async (t) => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...SORTS), fc.boolean(), fc.integer({ min: 0, max: ROWS + 10 }), fc.integer({ min: 1, max: 90 }), async (sort, filtered, offset, limit) => {
      const where = filtered ? [{ field: 'stars', op: 'min', value: 2 } as const] : []
      t.strictSame(await seeking.slice({}, offset, limit, where, sort), await skipping.slice({}, offset, limit, where, sort))
    }), { seed: SEED, numRuns: NUM_RUNS })
  })

  t.test('a deep sorted page seeks from a pair, NULL or not', async (t) => {
    for (const sort of SORTS) {
      const order = expected(sort)
      for (const offset of [EVERY * 2 + 3, ROWS - 5, EVERY]) {
        queries.length = 0
        t.strictSame((await seeking.slice({}, offset, 5, [], sort)).map((row) => row.id), order.slice(offset, offset + 5), `${sort.field} ${sort.direction} at ${offset}`)
        t.ok(queries.some((text) => (/"id" >= /.test(text) && /"(stars|label)" (<|>)=? /.test(text)) || /is null and "id" >= /.test(text)), 'a seek')
      }
    }
  })

  t.test('the stream follows the sort, and so does the plain list\'s name', async (t) => {
    const sort = { field: 'label', direction: 'desc' } as const
    const streamed: number[] = []
    for await (const batch of skipping.stream({}, [], {}, sort)) streamed.push(...batch.map((row) => row.id))
    t.strictSame(streamed, expected(sort))
    const { version } = skipping
    if (version === undefined) throw new Error('a store\'s source has a version')
    t.not(await version({}, [], sort), await version({}, []), 'sorted or not, two lists')
    t.not(await version({}, [], sort), await version({}, [], { ...sort, direction: 'asc' }))
    // The same name for the same sort, read twice with nothing written between (PostgreSQL's version is the cluster's).
    let names: string[] = []
    t.ok(await whileUnwritten(store.dataVersion, async () => { names = [await version({}, [], sort), await version({}, [], { ...sort })] }))
    t.equal(names[0], names[1])
  })
}

await onBothStores(t, seeded, checks)
