// Byte windows over content (the CONTENT-byte family): an offset in bytes and a window size, the
// size bounded by a ceiling that refuses (the one documented exception to clamping), text served
// as text and never split inside a UTF-8 character, anything else as base64.
import Type, { type TProperties } from 'typebox'
import { invalidArguments } from '../core/errors.js'
import type { JsonSchema } from '../projection/index.js'
import { withContinuation } from './continuation.js'
import { agentParameter, ASK_AS_AN_AGENT, positiveInteger } from './style.js'

export interface ByteOptions {
  readonly style: 'bytes'
  /** The most bytes a window holds (default 65536); a larger max_bytes is refused, not clamped. */
  readonly ceiling?: number
  /** The window's size when max_bytes is not sent (default 16384, and at most the ceiling). */
  readonly defaultBytes?: number
}

export const BYTE_DEFAULTS = { ceiling: 65536, defaultBytes: 16384 } as const

/** The least max_bytes: a window always has room for one whole UTF-8 character. */
export const MIN_WINDOW_BYTES = 4

/** Which bytes to read: `[start, end)`, with the offset as sent. */
export interface ByteWindow {
  /** The offset as sent (default 0), perhaps past the end. */
  readonly offset: number
  readonly start: number
  readonly end: number
  readonly total: number
}

/** How an agent reads a byte resource: its parameters, its windows and its envelope. */
export interface ByteWindowing {
  /** `offset` and `max_bytes`: agent-only, taken off before the closed arguments. */
  readonly parameters: TProperties
  readonly agentsOnly: string
  window: (query: Readonly<Record<string, number | undefined>>, total: number) => ByteWindow
  /** The envelope of the bytes read for `window`; `text` serves them as UTF-8 text, else as base64. */
  envelope: (bytes: Uint8Array, window: ByteWindow, text: boolean) => Record<string, unknown>
  readonly schema: JsonSchema
}

export function byteWindowing (options: Omit<ByteOptions, 'style'> = {}): ByteWindowing {
  const ceiling = positiveInteger('ceiling', options.ceiling ?? BYTE_DEFAULTS.ceiling)
  const usual = positiveInteger('defaultBytes', options.defaultBytes ?? Math.min(BYTE_DEFAULTS.defaultBytes, ceiling))
  if (ceiling < MIN_WINDOW_BYTES) throw new RangeError(`ceiling must be at least ${MIN_WINDOW_BYTES} (a whole UTF-8 character); got ${ceiling}.`)
  if (usual > ceiling || usual < MIN_WINDOW_BYTES) throw new RangeError(`defaultBytes must be from ${MIN_WINDOW_BYTES} to the ceiling (${ceiling}); got ${usual}.`)
  return {
    parameters: {
      offset: agentParameter('The first byte of the window, from 0; send the previous window\'s next_offset to go on.', { minimum: 0, default: 0 }),
      max_bytes: Type.Optional(Type.Integer({
        minimum: MIN_WINDOW_BYTES,
        maximum: ceiling,
        description: `Agents only. The most bytes the window holds, from ${MIN_WINDOW_BYTES} to ${ceiling}: a larger value is refused, not clamped. A text window may hold up to 3 fewer, so as not to split a character. Default: ${usual}.`
      }))
    },
    agentsOnly: `Byte windows apply to agents only: a plain client gets the whole content, or the range its Range header asks for. ${ASK_AS_AN_AGENT} for a window.`,
    window: (query, total) => byteWindow(query.offset, query.max_bytes ?? usual, total),
    envelope: byteEnvelope,
    schema: BYTE_WINDOW_SCHEMA
  }
}

/** The bytes from `offset`, at most `maxBytes` of them; an offset past the end reads nothing. */
export function byteWindow (offset: number | undefined, maxBytes: number, total: number): ByteWindow {
  const sent = offset ?? 0
  const start = Math.min(sent, total)
  return { offset: sent, start, end: Math.min(start + maxBytes, total), total }
}

/**
 * The window's envelope. `returned` counts the bytes served, and `next_offset` (on every window)
 * is the byte after them: the total once nothing follows, so reading is done when
 * `next_offset == total_bytes`, as when `has_more` is false.
 */
export function byteEnvelope (bytes: Uint8Array, window: ByteWindow, text: boolean): Record<string, unknown> {
  const { offset, start, total } = window
  const served = text ? wholeCharacters(bytes, offset, start + bytes.length >= total) : bytes
  const next = start + served.length
  const hasMore = next < total
  const body = Buffer.from(served.buffer, served.byteOffset, served.byteLength)
  const envelope = {
    content: body.toString(text ? 'utf8' : 'base64'),
    encoding: text ? 'utf-8' : 'base64',
    offset,
    returned: served.length,
    total_bytes: total,
    has_more: hasMore,
    next_offset: next
  }
  return withContinuation(envelope, hasMore ? { parameter: 'offset', value: next, unit: 'bytes' } : undefined, undefined)
}

/** True for a UTF-8 text media type: `text/*`, with no charset or a UTF-8 one. */
export function isUtf8Text (mediaType: string): boolean {
  const [type, ...parameters] = mediaType.split(';').map((part) => part.trim().toLowerCase())
  if (!type.startsWith('text/')) return false
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))
  return charset === undefined || /^charset="?utf-?8"?$/.test(charset)
}

/**
 * The window cut back to the end of its last whole character, unless it ends the content. A window
 * that starts inside a character is refused: its first bytes would be no text at all.
 */
function wholeCharacters (bytes: Uint8Array, offset: number, last: boolean): Uint8Array {
  if (bytes.length > 0 && isContinuation(bytes[0])) {
    throw invalidArguments({ offset: [`Byte ${offset} is inside a UTF-8 character: send the offset of a character's first byte (a window's next_offset always is one).`] })
  }
  if (last) return bytes
  // The last lead byte among the final four, and whether the character it starts is whole.
  for (let at = bytes.length - 1; at >= Math.max(0, bytes.length - 4); at--) {
    if (isContinuation(bytes[at])) continue
    return at > 0 && at + sequenceLength(bytes[at]) > bytes.length ? bytes.subarray(0, at) : bytes
  }
  return bytes
}

function isContinuation (byte: number): boolean {
  return (byte & 0xc0) === 0x80
}

/** How many bytes the character a lead byte starts has. */
function sequenceLength (lead: number): number {
  if (lead < 0x80) return 1
  if (lead >= 0xf0) return 4
  return lead >= 0xe0 ? 3 : 2
}

export const BYTE_WINDOW_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    content: { type: 'string', description: 'The window\'s bytes: the text itself when encoding is utf-8, else their base64.' },
    encoding: { type: 'string', enum: ['utf-8', 'base64'], description: 'How content carries the bytes: utf-8 for a text (text/*), base64 for anything else.' },
    offset: { type: 'integer', minimum: 0, description: 'The offset of the window\'s first byte, as sent (default 0).' },
    returned: { type: 'integer', minimum: 0, description: 'How many bytes the window holds (bytes, not characters): next_offset - offset, or 0 past the end.' },
    total_bytes: { type: 'integer', minimum: 0, description: 'How many bytes the content has.' },
    has_more: { type: 'boolean', description: 'Whether bytes follow this window: read on until it is false.' },
    next_offset: { type: 'integer', minimum: 0, description: 'The byte after this window: the offset to send next. On every window; equal to total_bytes once the content is read.' },
    hint: { type: 'string', description: 'One sentence for a model: the offset to send next. Present only when has_more.' }
  },
  required: ['content', 'encoding', 'offset', 'returned', 'total_bytes', 'has_more', 'next_offset']
}
