// Range requests (RFC 9110 section 14) for a byte resource's plain variant: the whole content with
// `Accept-Ranges: bytes`, one range as a 206 with `Content-Range`, a range past the end as a 416
// naming the length. Several ranges in one request, a malformed Range, or an If-Range naming
// anything but the current validator: the whole content, a 200 (a server may ignore Range).
import type { FastifyReply, FastifyRequest } from 'fastify'
import { problem } from '../core/errors.js'
import type { ByteContent } from '../sources/index.js'
import { preconditionOutcome, strongly } from './conditional.js'

/** One satisfiable range: the bytes from `start` to `end`, both inclusive, as Content-Range writes them. */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

/**
 * What a Range header asks of content of `length` bytes: one range (cut to the content), that no
 * range of it can be served (`unsatisfiable`), or nothing to honour (no header, a malformed one, a
 * unit other than bytes, or several ranges): `undefined`, the whole content.
 */
export function rangeOf (header: string | undefined, length: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined
  const match = /^bytes=(.*)$/i.exec(header.trim())
  if (match === null) return undefined
  // A list element may be empty (RFC 9110 section 5.6.1): `bytes=0-9,` is one range.
  const specs = match[1].split(',').map((spec) => spec.trim()).filter((spec) => spec !== '')
  if (specs.length !== 1) return undefined
  const spec = /^(\d*)-(\d*)$/.exec(specs[0])
  if (spec === null) return undefined
  const [, first, last] = spec
  if (first === '') {
    // `-n`: the last n bytes (all of them when there are fewer); `-` alone names nothing.
    if (last === '') return undefined
    const suffix = Number(last)
    return suffix === 0 || length === 0 ? 'unsatisfiable' : { start: Math.max(0, length - suffix), end: length - 1 }
  }
  const start = Number(first)
  const end = last === '' ? Infinity : Number(last)
  // A last position before the first makes the header invalid: ignored, not refused.
  if (end < start) return undefined
  return start >= length ? 'unsatisfiable' : { start, end: Math.min(end, length - 1) }
}

/**
 * Sends `content` as a plain client asked for it, `tag` being its ETag as sent (the strong
 * validator If-Range is compared with); answers 416 (a problem) for a range past the end.
 */
export async function bytesAnswer (request: FastifyRequest, reply: FastifyReply, content: ByteContent, tag: string): Promise<Buffer> {
  reply.header('accept-ranges', 'bytes')
  const range = honoured(request, tag) ? rangeOf(request.headers.range, content.length) : undefined
  // Preconditions come before Range (RFC 9110 section 13.2.2): when they decide (412, 304), the whole
  // content goes on to the ETag plugin, which answers by them, rather than a 416.
  if (range === 'unsatisfiable' && preconditionOutcome(request.headers, tag) !== undefined) return asBuffer(await content.read(0, content.length))
  if (range === 'unsatisfiable') {
    const refused = problem('AG_RANGE_NOT_SATISFIABLE', `The Range header asks for bytes this content does not have: it has ${content.length} bytes, numbered from 0.`)
    throw Object.assign(refused, { headers: { 'content-range': `bytes */${content.length}` } })
  }
  if (range === undefined) return asBuffer(await content.read(0, content.length))
  reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${content.length}`)
  return asBuffer(await content.read(range.start, range.end + 1))
}

/**
 * Range is honoured unless If-Range names another validator: an entity tag compared strongly with
 * the current one, or a date (this content has no Last-Modified, so a date never matches).
 */
function honoured (request: FastifyRequest, tag: string): boolean {
  const ifRange = request.headers['if-range']
  return ifRange === undefined || strongly(String(ifRange).trim(), tag)
}

/** The same bytes, as a Buffer (no copy): what Fastify sends as it is. */
function asBuffer (bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
