// Shapes: one per distinct arguments and conditions (by value), built once while kept, at most a
// bounded number kept; a kysely source builds a query once for every count and page of the same
// arguments and form of conditions, each call's values bound in it, and once for the streams of
// the same arguments and values.
import t from 'tap'
import { perArguments } from '../../../src/sources/shapes.js'
import { kyselySource } from '../../../src/sources/index.js'
import { openStore } from '../../../src/store/index.js'

t.test('built once per distinct arguments and conditions, compared by value', async (t) => {
  const made: unknown[] = []
  const shapes = perArguments((args: Record<string, unknown>, where) => {
    made.push([args, where])
    return { args, where }
  })
  const first = shapes({ account: 1 })
  t.equal(shapes({ account: 1 }), first, 'equal arguments, the same shape')
  t.equal(shapes({ account: 1 }, []), first, 'no conditions is none')
  t.not(shapes({ account: 2 }), first)
  t.not(shapes({ account: 1 }, [{ field: 'memo', op: 'prefix', value: 'E' }]), first, 'conditions count')
  t.not(shapes({ account: '1' }), first, 'a number is not its text')
  t.not(shapes({ account: 1n }), shapes({ account: '1' }), 'nor a bigint its digits')
  t.equal(made.length, 5)
})

t.test('past the bound, the kept shapes are dropped and built again as asked', async (t) => {
  let made = 0
  const shapes = perArguments((args: { n: number }) => ({ n: args.n, made: ++made }), 2)
  shapes({ n: 1 })
  shapes({ n: 2 })
  t.equal(made, 2)
  t.equal(shapes({ n: 3 }).made, 3, 'a third: the two kept are dropped')
  t.equal(shapes({ n: 3 }).made, 3, 'kept')
  t.equal(shapes({ n: 1 }).made, 4, 'built again')
})

t.test('a kysely source builds each arguments\' query once for its counts and pages, and once for its streams', async (t) => {
  const store = await openStore<{ entries: { id: number, account: number } }>(':memory:')
  t.teardown(() => store.close())
  const { db } = store
  await db.schema.createTable('entries').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('account', 'integer').execute()
  await db.insertInto('entries').values(Array.from({ length: 12 }, (_, i) => ({ id: i + 1, account: i % 2 }))).execute()
  const built: unknown[] = []
  const source = kyselySource(store, (args: { account?: number }) => {
    built.push(args)
    const all = db.selectFrom('entries').select('id').orderBy('id')
    return args.account === undefined ? all : all.where('account', '=', args.account)
  })
  for (let round = 0; round < 3; round++) {
    t.equal(await source.count({ account: 1 }), 6)
    t.strictSame((await source.slice({ account: 1 }, 2, 2)).map((row) => row.id), [6, 8])
    t.strictSame((await source.slice({}, round, 1)).map((row) => row.id), [round + 1], 'each page\'s own bounds')
    for await (const batch of source.stream({ account: 1 })) t.equal(batch.length, 6)
  }
  t.strictSame(built, [{ account: 1 }, {}, { account: 1 }], 'the counts and pages of each, then the streams of one')
})

t.test('a condition\'s new value is bound in the statement compiled for the last one: its own rows, total and name', async (t) => {
  const queries: string[] = []
  const store = await openStore<{ entries: { id: number, memo: string, open: number } }>(':memory:', { onQuery: (sql) => { queries.push(sql) } })
  t.teardown(() => store.close())
  const { db } = store
  await db.schema.createTable('entries').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('memo', 'text').addColumn('open', 'integer').execute()
  await db.insertInto('entries').values(Array.from({ length: 12 }, (_, i) => ({ id: i + 1, memo: i < 6 ? `Ab ${i + 1}` : `Cd ${i + 1}`, open: i % 2 }))).execute()
  const built: unknown[] = []
  const source = kyselySource(store, (args: Record<string, never>) => {
    built.push(args)
    return db.selectFrom('entries').select('id').orderBy('id')
  })
  const from = (id: number) => [{ field: 'id', op: 'min' as const, value: id }]
  const versions = new Set<string>()
  for (const id of [2, 5, 9]) {
    t.equal(await source.count({}, from(id)), 13 - id, `from ${id}: its total`)
    t.strictSame((await source.slice({}, 1, 2, from(id))).map((row) => row.id), [id + 1, id + 2], `from ${id}: its rows`)
    versions.add(await source.version!({}, from(id)))
  }
  t.equal(versions.size, 3, 'each value names its own rows')
  t.strictSame(built, [{}], 'one query for the three values')
  t.equal(new Set(queries.filter((text) => text.startsWith('select "id"'))).size, 1, 'and one statement')
  // A prefix's length and a boolean are in the SQL: another of either is another form.
  const prefix = (text: string) => [{ field: 'memo', op: 'prefix' as const, value: text }]
  t.equal(await source.count({}, prefix('Ab')), 6)
  t.equal(await source.count({}, prefix('Cd')), 6)
  t.equal(await source.count({}, prefix('Cd 1')), 3)
  t.equal(built.length, 3, 'a prefix of another length is another form')
  t.strictSame((await source.slice({}, 0, 9, [{ field: 'open', op: 'equals', value: true }])).map((row) => row.id), [2, 4, 6, 8, 10, 12])
  t.strictSame((await source.slice({}, 0, 9, [{ field: 'open', op: 'equals', value: false }])).map((row) => row.id), [1, 3, 5, 7, 9, 11])
  t.equal(built.length, 5, 'true and false, two forms')
  const rows: unknown[] = []
  for await (const batch of source.stream({}, from(10))) rows.push(...batch.map((row) => row.id))
  t.strictSame(rows, [10, 11, 12], 'a stream of its own values')
})
