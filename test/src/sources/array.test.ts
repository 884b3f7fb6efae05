import t from 'tap'
import { arrayRecordSource, arraySource } from '../../../src/sources/index.js'

const rows = [{ id: 1, tag: 'a' }, { id: 2, tag: 'b' }, { id: 3, tag: 'a' }]

async function collect<T> (items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

t.test('a fixed list: count, slice, stream in array order', async (t) => {
  const source = arraySource(rows)
  t.equal(await source.count({}), 3)
  t.strictSame(await source.slice({}, 1, 5), rows.slice(1))
  t.strictSame(await collect(source.stream({})), rows)
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
