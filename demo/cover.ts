// The demo books' covers: a small PNG per book, drawn from its id at seed time, so every store
// holds the same bytes. The encoder is PNG's minimum (RFC 2083): the signature, IHDR, one zlib
// IDAT of 8-bit RGB rows (each row filtered with type 0, none), IEND, each chunk with its CRC-32.
import { deflateSync } from 'node:zlib'

export const COVER_WIDTH = 96
export const COVER_HEIGHT = 144
export const COVER_MEDIA_TYPE = 'image/png'

/** Book `id`'s cover: a colour of its own, a frame, ripples that differ from book to book, and a band of grain. */
export function coverImage (id: number): Buffer {
  const hue = (id * 137) % 360
  const [r, g, b] = rgbOf(hue)
  const pixels = Buffer.alloc(COVER_WIDTH * COVER_HEIGHT * 3)
  // Odd, so never 0: xorshift keeps 0 at 0.
  let seed = ((id * 2654435761) >>> 0) | 1
  for (let y = 0; y < COVER_HEIGHT; y++) {
    for (let x = 0; x < COVER_WIDTH; x++) {
      const framed = x < 6 || y < 6 || x >= COVER_WIDTH - 6 || y >= COVER_HEIGHT - 6
      const dx = x - COVER_WIDTH / 2
      const dy = y - COVER_HEIGHT / 3
      // Rings around a point a third of the way down; their spacing is the book's own.
      const ring = Math.floor(Math.sqrt(dx * dx + dy * dy) / (3 + (id % 5))) % 4
      const shade = framed ? 0.35 : 0.55 + ring * 0.15
      // A band of grain where a title would be, from a generator seeded by the id: a few KB in all.
      const grain = y >= BAND_TOP && y < BAND_TOP + BAND_HEIGHT && !framed
      const at = (y * COVER_WIDTH + x) * 3
      for (const [channel, value] of [r, g, b].entries()) {
        seed = next(seed)
        pixels[at + channel] = Math.min(255, Math.round(value * shade) + (grain ? seed & 15 : 0))
      }
    }
  }
  return encodePng(COVER_WIDTH, COVER_HEIGHT, pixels)
}

/** A PNG of `width` x `height` 8-bit RGB pixels, row after row. */
export function encodePng (width: number, height: number, rgb: Buffer): Buffer {
  const stride = width * 3
  const rows = Buffer.alloc((stride + 1) * height)
  for (let y = 0; y < height; y++) rgb.copy(rows, y * (stride + 1) + 1, y * stride, (y + 1) * stride)
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  // Bit depth 8, colour type 2 (RGB), deflate, filtering method 0, no interlace.
  header.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0))
  ])
}

function chunk (type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  data.copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** CRC-32 (ISO 3309, as PNG uses it): Node 20 has no zlib.crc32. */
export function crc32 (bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8)) >>> 0
  return (crc ^ 0xffffffff) >>> 0
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = (c & 1) === 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

const BAND_TOP = 96
const BAND_HEIGHT = 28

/** xorshift32: the next of a deterministic sequence of 32-bit numbers, never 0 from a seed that is not. */
function next (x: number): number {
  x ^= x << 13
  x ^= x >>> 17
  x ^= x << 5
  return x >>> 0
}

/** A fully saturated colour of `hue` degrees, as 0-255 RGB. */
function rgbOf (hue: number): [number, number, number] {
  const sector = Math.floor(hue / 60)
  const rising = Math.round(((hue % 60) / 60) * 255)
  const falling = 255 - rising
  const sectors: Array<[number, number, number]> = [
    [255, rising, 0], [falling, 255, 0], [0, 255, rising], [0, falling, 255], [rising, 0, 255], [255, 0, falling]
  ]
  return sectors[sector]
}
