// Byte sources: a record's bytes (a blob column, read with its row), and a file on disk, read a
// range at a time. Each knows its content's length and names it by a strong validator.
import { createHash } from 'node:crypto'
import { open, stat } from 'node:fs/promises'
import type { ByteContent, ByteSource, RecordSource } from './source.js'

/**
 * The bytes a record holds (a blob column): the row is read once per call, whole, so this suits
 * content of modest size (an image, a document), not one too large to hold in memory. A missing
 * record, or a record whose bytes are null, is missing content: the route answers 404 for both.
 */
export function recordBytesSource<Args, Row> (records: RecordSource<Args, Row>, bytes: (row: Row) => Uint8Array | null | undefined): ByteSource<Args> {
  return {
    open: async (args) => {
      const row = await records.one(args)
      const held = row === undefined ? undefined : bytes(row)
      return held === undefined || held === null ? undefined : bufferContent(held)
    },
    problems: records.problems
  }
}

/** Bytes held in memory as content: its validator is a digest of the bytes, so equal bytes share it. */
export function bufferContent (bytes: Uint8Array): ByteContent {
  const held = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return {
    length: held.length,
    tag: createHash('sha256').update(held).digest('base64url').slice(0, 27),
    read: async (start, end) => held.subarray(start, end)
  }
}

/**
 * The file the arguments name (`pathOf` returns its path, or undefined for none): only the range
 * asked for is read. A path that names no regular file is missing content. Its validator is the
 * file's size, modification time and inode, as a file server's strong ETag is.
 */
export function fileBytesSource<Args> (pathOf: (args: Args) => string | undefined): ByteSource<Args> {
  return {
    open: async (args) => {
      const path = pathOf(args)
      if (path === undefined) return undefined
      const stats = await statOf(path)
      if (stats === undefined) return undefined
      const { size, mtimeMs, ino } = stats
      return {
        length: size,
        tag: `${ino.toString(36)}-${size.toString(36)}-${Math.trunc(mtimeMs * 1000).toString(36)}`,
        read: async (start, end) => await readRange(path, start, end)
      }
    },
    problems: []
  }
}

async function statOf (path: string): Promise<{ size: number, mtimeMs: number, ino: number } | undefined> {
  try {
    const stats = await stat(path)
    return stats.isFile() ? stats : undefined
  } catch (error) {
    if (MISSING.has((error as { code?: unknown }).code)) return undefined
    throw error
  }
}

/** `[start, end)` of the file; a file cut shorter since it was measured gives what it still has. */
async function readRange (path: string, start: number, end: number): Promise<Uint8Array> {
  const handle = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(end - start)
    let filled = 0
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return buffer.subarray(0, filled)
  } finally {
    await handle.close()
  }
}

/** A path that names nothing, or goes through something that is not a directory. */
const MISSING = new Set<unknown>(['ENOENT', 'ENOTDIR'])
