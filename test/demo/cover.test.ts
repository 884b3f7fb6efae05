// The demo covers: valid PNGs (signature, chunks, CRCs, the pixels inflated back), a few KB, the
// same bytes on every call, a different image per book.
import t from 'tap'
import { inflateSync } from 'node:zlib'
import { COVER_HEIGHT, COVER_WIDTH, coverImage, crc32, encodePng } from '../../demo/cover.js'

interface Chunk { type: string, data: Buffer }

function chunksOf (png: Buffer): Chunk[] {
  const chunks: Chunk[] = []
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at)
    const type = png.toString('latin1', at + 4, at + 8)
    const data = png.subarray(at + 8, at + 8 + length)
    t.equal(png.readUInt32BE(at + 8 + length), crc32(png.subarray(at + 4, at + 8 + length)), `${type}'s CRC`)
    chunks.push({ type, data })
    at += 12 + length
  }
  return chunks
}

t.test('CRC-32 is the ISO 3309 one: its check value', async (t) => {
  t.equal(crc32(Buffer.from('123456789')), 0xcbf43926)
  t.equal(crc32(Buffer.alloc(0)), 0)
})

t.test('a cover is a PNG of 96 x 144 RGB pixels, a few KB, the same on every call', async (t) => {
  const png = coverImage(1)
  t.strictSame([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const chunks = chunksOf(png)
  t.strictSame(chunks.map((chunk) => chunk.type), ['IHDR', 'IDAT', 'IEND'])
  const header = chunks[0].data
  t.strictSame([header.readUInt32BE(0), header.readUInt32BE(4), ...header.subarray(8)], [COVER_WIDTH, COVER_HEIGHT, 8, 2, 0, 0, 0])
  const rows = inflateSync(chunks[1].data)
  t.equal(rows.length, (COVER_WIDTH * 3 + 1) * COVER_HEIGHT)
  t.ok(png.length > 1000 && png.length < 8000, `${png.length} bytes`)
  t.strictSame(coverImage(1), png)
  t.notSame(coverImage(2), png)
})

t.test('the encoder keeps every pixel, each row filtered with type 0', async (t) => {
  const rgb = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
  const rows = inflateSync(chunksOf(encodePng(2, 2, rgb))[1].data)
  t.strictSame([...rows], [0, 1, 2, 3, 4, 5, 6, 0, 7, 8, 9, 10, 11, 12])
})
