// Shapes: one per distinct arguments and conditions (by value), built once while kept, at most a
// bounded number kept; and a kysely source builds a query once for every count, page and stream of
// the same arguments.
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

t.test('a kysely source builds each arguments\' query once, however often it counts, pages and streams them', async (t) => {
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
  t.strictSame(built, [{ account: 1 }, {}])
})
