// Byte sources: a record's bytes (missing record or null bytes: no content), bytes in memory named
// by their digest, and a file read a range at a time, named by its size, mtime and inode.
import t from 'tap'
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { arrayRecordSource, bufferContent, fileBytesSource, recordBytesSource } from '../../../src/sources/index.js'

t.test('a record\'s bytes: found, read by range; a missing record or null bytes is no content', async (t) => {
  const rows = [{ id: 1, image: new Uint8Array([1, 2, 3, 4]) }, { id: 2, image: null }]
  const source = recordBytesSource(arrayRecordSource(rows, (row, { id }: { id: number }) => row.id === id), (row) => row.image)
  const content = await source.open({ id: 1 })
  t.equal(content?.length, 4)
  t.strictSame([...await content!.read(1, 3)], [2, 3])
  t.equal(await source.open({ id: 2 }), undefined)
  t.equal(await source.open({ id: 3 }), undefined)
})

t.test('bytes in memory: the validator names the bytes, whatever view holds them', async (t) => {
  const whole = new Uint8Array([9, 1, 2, 3, 9])
  const a = bufferContent(whole.subarray(1, 4))
  const b = bufferContent(Buffer.from([1, 2, 3]))
  t.equal(a.tag, b.tag, 'equal bytes, one validator')
  t.not(a.tag, bufferContent(Buffer.from([1, 2, 4])).tag, 'other bytes, another')
  t.match(a.tag, /^[A-Za-z0-9_-]{27}$/)
  t.strictSame([...await a.read(0, 3)], [1, 2, 3], 'only the view\'s bytes')
})

t.test('a file: its length, a range read from disk, a validator that changes with it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bytes-'))
  const path = join(dir, 'a.bin')
  writeFileSync(path, Buffer.from('0123456789'))
  const source = fileBytesSource(({ name }: { name: string }) => name === 'none' ? undefined : join(dir, name))
  const content = await source.open({ name: 'a.bin' })
  t.equal(content?.length, 10)
  t.equal(Buffer.from(await content!.read(2, 5)).toString(), '234')
  t.equal(Buffer.from(await content!.read(0, 10)).toString(), '0123456789')
  t.strictSame(source.problems, [])
  writeFileSync(path, Buffer.from('01234567890123'))
  const grown = await source.open({ name: 'a.bin' })
  t.not(grown?.tag, content?.tag, 'a file changed has another validator')
  truncateSync(path, 3)
  t.equal(Buffer.from(await grown!.read(0, 14)).toString(), '012', 'a file cut shorter since: what it still has')
  t.equal(await source.open({ name: 'missing.bin' }), undefined, 'no such file')
  t.equal(await source.open({ name: '.' }), undefined, 'a directory is no file')
  t.equal(await source.open({ name: 'a.bin/x' }), undefined, 'a path through a file')
  t.equal(await source.open({ name: 'none' }), undefined, 'no path')
  await t.rejects(source.open({ name: 'bad\0name' }), { code: 'ERR_INVALID_ARG_VALUE' }, 'any other failure is a failure')
})
