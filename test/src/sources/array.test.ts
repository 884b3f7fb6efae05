import t from 'tap'
import { arrayRecordSource, arraySource } from '../../../src/sources/index.js'

const rows = [{ id: 1, tag: 'a' }, { id: 2, tag: 'b' }, { id: 3, tag: 'a' }]

async function collect<T> (batches: AsyncIterable<readonly T[]>): Promise<T[]> {
  const out: T[] = []
  for await (const batch of batches) out.push(...batch)
  return out
}

t.test('a fixed list: count, slice, stream in array order', async (t) => {
  const source = arraySource(rows)
  t.equal(await source.count({}), 3)
  t.strictSame(await source.slice({}, 1, 5), rows.slice(1))
  t.strictSame(await collect(source.stream({})), rows)
})

t.test('a long list streams in batches of a thousand rows', async (t) => {
  const many = Array.from({ length: 2500 }, (_, id) => ({ id }))
  const batches: number[] = []
  for await (const batch of arraySource(many).stream({})) batches.push(batch.length)
  t.strictSame(batches, [1000, 1000, 500])
})

t.test('a list selected by the arguments', async (t) => {
  const source = arraySource(({ tag }: { tag: string }) => rows.filter((row) => row.tag === tag))
  t.equal(await source.count({ tag: 'a' }), 2)
  t.strictSame(await source.slice({ tag: 'a' }, 1, 1), [rows[2]])
  t.strictSame(await collect(source.stream({ tag: 'b' })), [rows[1]])
})

t.test('a record source finds the first match or nothing', async (t) => {
  const source = arrayRecordSource(rows, (row, { id }: { id: number }) => row.id === id)
  t.strictSame(await source.one({ id: 2 }), rows[1])
  t.equal(await source.one({ id: 9 }), undefined)
})

t.test('conditions filter the rows before counting, slicing and streaming; a missing or null value meets none', async (t) => {
  const dated = [
    { id: 1, tag: 'alpha', at: '2026-01-01T00:00:00Z', n: 5 },
    { id: 2, tag: 'beta', at: '2026-02-01T00:00:00Z', n: 10 },
    { id: 3, tag: 'alps', at: null, n: null },
    { id: 4, tag: 'Alpine', at: '2026-03-01T00:00:00Z', n: 15 }
  ]
  const source = arraySource(dated)
  t.ok(source.canFilter?.('tag', 'prefix'))
  t.equal(await source.count({}, [{ field: 'tag', op: 'prefix', value: 'al' }]), 2)
  t.strictSame((await source.slice({}, 0, 9, [{ field: 'at', op: 'min', value: '2026-02-01T00:00:00Z' }])).map((row) => row.id), [2, 4])
  t.strictSame((await collect(source.stream({}, [{ field: 'n', op: 'max', value: 10 }]))).map((row) => row.id), [1, 2])
  t.strictSame((await source.slice({}, 0, 9, [{ field: 'n', op: 'min', value: 6 }, { field: 'n', op: 'max', value: 20 }])).map((row) => row.id), [2, 4])
  t.strictSame((await source.slice({}, 0, 9, [{ field: 'id', op: 'equals', value: 3 }])).map((row) => row.id), [3])
  t.equal(await source.count({}, [{ field: 'missing', op: 'prefix', value: 'a' }]), 0)
  t.equal(await source.count({}, []), 4, 'no conditions: every row')
})

t.test('a sort: by the field, a null or missing value lowest, ties in array order, the count unchanged', async (t) => {
  const ranked = [{ id: 1, rank: 2 }, { id: 2, rank: null }, { id: 3 }, { id: 4, rank: 1 }, { id: 5, rank: 2 }, { id: 6, rank: null }]
  const source = arraySource<unknown, { id: number, rank?: number | null }>(ranked)
  t.ok(source.canSort?.('rank'))
  const ids = async (direction: 'asc' | 'desc'): Promise<number[]> => (await source.slice({}, 0, 9, [], { field: 'rank', direction })).map((row) => row.id)
  t.strictSame(await ids('asc'), [2, 3, 6, 4, 1, 5])
  t.strictSame(await ids('desc'), [1, 5, 4, 2, 3, 6])
  t.strictSame((await collect(source.stream({}, [], {}, { field: 'rank', direction: 'desc' }))).map((row) => row.id), [1, 5, 4, 2, 3, 6], 'the stream too')
  t.strictSame((await source.slice({}, 0, 9)).map((row) => row.id), [1, 2, 3, 4, 5, 6], 'unsorted, as given')
  t.equal(await source.count({}), 6)
})
