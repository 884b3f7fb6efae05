// Byte windows: the window read for an offset and a size, the envelope (text or base64, next_offset
// on every window, the hint iff more), a text never cut inside a UTF-8 character, and the options.
import t from 'tap'
import { byteEnvelope, byteWindow, byteWindowing, isUtf8Text, MIN_WINDOW_BYTES } from '../../../src/paging/bytes.js'

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'))

/** The envelope of `content` read from `offset`, at most `max` bytes, as the core reads it. */
function windowOf (content: Uint8Array, offset: number | undefined, max: number, text: boolean): Record<string, unknown> {
  const window = byteWindow(offset, max, content.length)
  return byteEnvelope(content.subarray(window.start, window.end), window, text)
}

t.test('a window: offset as sent, returned in bytes, next_offset on every window, the hint iff more', async (t) => {
  const content = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  t.strictSame(windowOf(content, undefined, 4, false), {
    content: Buffer.from([0, 1, 2, 3]).toString('base64'),
    encoding: 'base64',
    offset: 0,
    returned: 4,
    total_bytes: 10,
    has_more: true,
    next_offset: 4,
    hint: 'Send offset=4 to get the next bytes; repeat until has_more is false.'
  })
  t.strictSame(windowOf(content, 8, 4, false), { content: 'CAk=', encoding: 'base64', offset: 8, returned: 2, total_bytes: 10, has_more: false, next_offset: 10 })
})

t.test('an offset at or past the end: an empty window, offset echoed, next_offset the total', async (t) => {
  const content = new Uint8Array(10)
  for (const offset of [10, 11, 1000]) {
    t.strictSame(windowOf(content, offset, 4, false), { content: '', encoding: 'base64', offset, returned: 0, total_bytes: 10, has_more: false, next_offset: 10 })
  }
  t.strictSame(windowOf(new Uint8Array(0), 0, 4, true), { content: '', encoding: 'utf-8', offset: 0, returned: 0, total_bytes: 0, has_more: false, next_offset: 0 })
})

t.test('a text window ending inside a character is cut back to the character\'s first byte', async (t) => {
  // "aé€😀": 1 + 2 + 3 + 4 bytes.
  const text = bytes('aé€😀b')
  const cases: Array<[number, number, string, number]> = [
    // offset, max_bytes, the text served, returned
    [0, 2, 'a', 1],
    [0, 4, 'aé', 3],
    [0, 5, 'aé', 3],
    [0, 6, 'aé€', 6],
    [3, 4, '€', 3],
    [6, 4, '😀', 4],
    [6, 5, '😀b', 5],
    [10, 4, 'b', 1]
  ]
  for (const [offset, max, served, returned] of cases) {
    const window = windowOf(text, offset, max, true)
    t.match(window, { content: served, encoding: 'utf-8', offset, returned, next_offset: offset + returned }, `offset ${offset}, max_bytes ${max}`)
  }
  t.match(windowOf(bytes('abc'), 0, 2, true), { content: 'ab', returned: 2, has_more: true }, 'a window ending on a one-byte character is whole')
  let walked = ''
  for (let offset = 0; offset < text.length;) {
    const window = windowOf(text, offset, 4, true) as { content: string, next_offset: number }
    walked += window.content
    offset = window.next_offset
  }
  t.equal(walked, 'aé€😀b', 'a walk by next_offset reassembles the text')
})

t.test('a text window starting inside a character is refused, naming the offset', async (t) => {
  let refused: unknown
  try {
    windowOf(bytes('aé'), 2, 4, true)
  } catch (error) {
    refused = error
  }
  t.match(refused, {
    statusCode: 400,
    errors: { offset: ['Byte 2 is inside a UTF-8 character: send the offset of a character\'s first byte (a window\'s next_offset always is one).'] }
  })
  t.strictSame(windowOf(bytes('aé'), 2, 4, false).returned, 1, 'as base64, any offset is served')
})

t.test('the end of a text is served as it is, even a truncated character; invalid bytes are not cut', async (t) => {
  t.match(windowOf(new Uint8Array([0x61, 0xe2, 0x82]), 0, 4, true), { returned: 3, has_more: false })
  t.match(windowOf(new Uint8Array([0x61, 0x80, 0x80, 0x80, 0x80, 0x61]), 0, 5, true), { returned: 5, has_more: true }, 'four continuation bytes: no character to keep whole')
  t.match(windowOf(new Uint8Array([0xf0, 0x9f, 0x98, 0x80, 0x61]), 0, 4, true), { returned: 4, content: '😀' }, 'a four-byte character filling the window')
})

t.test('the windowing\'s options, parameters and defaults', async (t) => {
  const usual = byteWindowing()
  t.strictSame(usual.window({}, 100000), { offset: 0, start: 0, end: 16384, total: 100000 })
  t.match(usual.parameters.max_bytes, { minimum: MIN_WINDOW_BYTES, maximum: 65536, description: /Default: 16384\.$/ })
  t.match(usual.parameters.offset, { minimum: 0, description: /^Agents only\. .*Default: 0\.$/ })
  const small = byteWindowing({ ceiling: 100 })
  t.strictSame(small.window({ offset: 5 }, 1000), { offset: 5, start: 5, end: 105, total: 1000 }, 'the default is at most the ceiling')
  t.strictSame(byteWindowing({ ceiling: 100, defaultBytes: 10 }).window({ max_bytes: 50 }, 1000), { offset: 0, start: 0, end: 50, total: 1000 })
  t.throws(() => byteWindowing({ ceiling: 3 }), /ceiling must be at least 4/)
  t.throws(() => byteWindowing({ ceiling: 0 }), /ceiling must be a positive integer/)
  t.throws(() => byteWindowing({ ceiling: 10, defaultBytes: 11 }), /defaultBytes must be from 4 to the ceiling \(10\); got 11/)
  t.throws(() => byteWindowing({ defaultBytes: 2 }), /defaultBytes must be from 4/)
  t.match(usual.agentsOnly, /plain client gets the whole content/)
})

t.test('which media types are served as text', async (t) => {
  for (const type of ['text/plain', 'text/csv; charset=utf-8', 'Text/Markdown; Charset="UTF-8"', 'text/plain;charset=utf8']) t.ok(isUtf8Text(type), type)
  for (const type of ['image/png', 'application/json', 'text/plain; charset=iso-8859-1', 'application/octet-stream']) t.notOk(isUtf8Text(type), type)
})
