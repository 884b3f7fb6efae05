// Deep pages by seek: every slice equals the OFFSET slice of the same query, filtered or not (by its
// arguments, or by a condition of any value), on SQLite and PostgreSQL; a deep page seeks from an
// anchor and skips fewer rows than the anchors' spacing; the anchors are read once per version of
// the data, and again after a write.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { kyselySource } from '../../../src/sources/index.js'
import { keysetSlicer } from '../../../src/sources/keyset.js'
import { openStore, type Store } from '../../../src/store/index.js'
import { onBothStores } from '../../helpers/services.js'
import { propertyRuns, propertySeed } from '../../helpers/fast-check.js'

type Tables = { numbered: { id: number, parity: string } }

const SEED = propertySeed(7_2026)
const NUM_RUNS = propertyRuns(150)
const ROWS = 2_500
const EVERY = 100

t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs (FC_RUNS)`)

/** 2,500 rows with ids that skip (3, 6, 9, …): a position is never its id. */
async function seeded (store: Store<any>): Promise<void> {
  const db = store.db.withTables<Tables>()
  await db.schema.createTable('numbered').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('parity', 'text').execute()
  const rows = Array.from({ length: ROWS }, (_, i) => ({ id: (i + 1) * 3, parity: i % 2 === 0 ? 'even' : 'odd' }))
  for (let start = 0; start < rows.length; start += 500) await db.insertInto('numbered').values(rows.slice(start, start + 500)).execute()
}

/**
 * `alone`: nothing else writes to the store, so its version moves only with this file's writes.
 * PostgreSQL's is the whole cluster's, which other test files write to meanwhile.
 */
async function checks (t: Test, store: Store<any>, queries: string[], alone: boolean): Promise<void> {
  const db = store.db.withTables<Tables>()
  const all = () => db.selectFrom('numbered').selectAll().orderBy('id')
  const odd = () => all().where('parity', '=', 'odd')
  const seeking = kyselySource(store, ({ odd: only }: { odd?: boolean }) => only === true ? odd() : all(), { keyset: { column: 'id', every: EVERY } })
  const skipping = kyselySource(store, ({ odd: only }: { odd?: boolean }) => only === true ? odd() : all())

  t.test('any slice is the OFFSET slice, filtered or not', async (t) => {
    await fc.assert(fc.asyncProperty(fc.boolean(), fc.integer({ min: 0, max: ROWS + 50 }), fc.integer({ min: 1, max: 250 }), async (only, offset, limit) => {
      const args = { odd: only }
      t.strictSame(await seeking.slice(args, offset, limit), await skipping.slice(args, offset, limit))
    }), { seed: SEED, numRuns: NUM_RUNS })
    t.strictSame((await seeking.slice({}, 2_499, 5)).map((row) => row.id), [7_500], 'the last row')
    t.strictSame(await seeking.slice({}, ROWS, 5), [], 'past the end, nothing')
  })

  t.test('under a filter, any slice is the OFFSET slice, whatever the filter\'s value: its anchors and seeks bind it', async (t) => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 3 * ROWS }), fc.integer({ min: 0, max: ROWS }), fc.integer({ min: 1, max: 250 }), async (from, offset, limit) => {
      const where = [{ field: 'id', op: 'min' as const, value: from }]
      t.strictSame(await seeking.slice({ odd: true }, offset, limit, where), await skipping.slice({ odd: true }, offset, limit, where))
    }), { seed: SEED, numRuns: NUM_RUNS })
  })

  t.test('a deep page seeks from an anchor, and the anchors are read once per version', async (t) => {
    await seeking.slice({}, 0, 1)
    queries.length = 0
    const deep = await seeking.slice({}, 2_345, 10)
    t.strictSame(deep.map((row) => row.id), Array.from({ length: 10 }, (_, i) => (2_346 + i) * 3))
    const anchorReads = () => queries.filter((text) => /row_number\(\) over/.test(text)).length
    t.ok(queries.some((text) => /"id" >= /.test(text)), 'a seek')
    queries.length = 0
    await seeking.slice({}, 1_234, 10)
    await seeking.slice({}, 2_490, 10)
    if (alone) t.equal(anchorReads(), 0, 'the anchors kept')
    await db.deleteFrom('numbered').where('id', '=', 3).execute()
    t.strictSame((await seeking.slice({}, 2_345, 1)).map((row) => row.id), [2_347 * 3], 'after a write, the rows as they are now')
    t.ok(anchorReads() >= 1, 'read again after a write')
    if (alone) t.equal(anchorReads(), 1, 'once')
    await db.insertInto('numbered').values({ id: 3, parity: 'even' }).execute()
  })
}

await onBothStores(t, seeded, async (t, store, queries, kind) => { await checks(t, store, queries, kind === 'sqlite') })

t.test('what a keyset cannot be given is refused at once', async (t) => {
  const store = await openStore(':memory:')
  t.teardown(() => store.close())
  for (const every of [0, -1, 1.5, Number.NaN]) {
    t.throws(() => keysetSlicer(store.db, store.read, { column: 'id', every }, store.dataVersion), RangeError, String(every))
  }
  const { db, stream, counts } = store
  t.throws(() => kyselySource({ db, stream, counts }, () => db.withTables<Tables>().selectFrom('numbered').selectAll(), { keyset: { column: 'id' } }), /keyset needs a store with a version of its data/)
})
