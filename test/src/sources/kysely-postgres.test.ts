// Filters as WHERE clauses on PostgreSQL: a boolean column compared with SQL's own literal, a
// prefix by its first characters (letter case counting, % and _ as characters), a range on a
// timestamp column; the count is of the filtered rows. Skips (loudly) without PostgreSQL.
import t from 'tap'
import { kyselySource } from '../../../src/sources/index.js'
import { openStore } from '../../../src/store/index.js'
import { freshSchema, needs } from '../../helpers/services.js'

type Tables = { flags: { id: number, on: boolean, label: string, at: string } }

if (await needs(t, 'PostgreSQL')) {
  const { url, drop } = freshSchema()
  const store = await openStore(url)
  t.teardown(async () => {
    await store.close()
    await drop()
  })
  const db = store.db.withTables<Tables>()
  await db.schema.createTable('flags').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('on', 'boolean').addColumn('label', 'text').addColumn('at', 'timestamptz').execute()
  await db.insertInto('flags').values([
    { id: 1, on: true, label: '50% off', at: '2026-01-01T00:00:00Z' },
    { id: 2, on: false, label: '500 off', at: '2026-01-02T00:00:00Z' },
    { id: 3, on: true, label: 'Off', at: '2026-01-03T00:00:00Z' }
  ]).execute()
  const source = kyselySource(store, () => db.selectFrom('flags').select('id').orderBy('id'), { countCache: false })
  const ids = async (where: Parameters<typeof source.slice>[3]): Promise<number[]> => (await source.slice({}, 0, 9, where)).map((row) => row.id)

  t.test('a boolean equals SQL\'s literal', async (t) => {
    t.strictSame(await ids([{ field: 'on', op: 'equals', value: true }]), [1, 3])
    t.equal(await source.count({}, [{ field: 'on', op: 'equals', value: false }]), 1)
  })

  t.test('a prefix: letter case counts, % is a character', async (t) => {
    t.strictSame(await ids([{ field: 'label', op: 'prefix', value: '50%' }]), [1])
    t.strictSame(await ids([{ field: 'label', op: 'prefix', value: 'off' }]), [])
  })

  t.test('a range on a timestamp column, with the UTC text a filter sends', async (t) => {
    t.strictSame(await ids([{ field: 'at', op: 'min', value: '2026-01-02T00:00:00Z' }, { field: 'at', op: 'max', value: '2026-01-02T23:59:59Z' }]), [2])
  })
}
