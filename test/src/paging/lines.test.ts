// Line windows' rules, on the pure builder: 1-based inclusive windows, the cut, the clamp, the hint.
import t from 'tap'
import { LINE_DEFAULTS, lineEnvelope, lineStyle, lineWindow } from '../../../src/paging/index.js'
import { validationErrors } from '../../helpers/ajv.js'
import { servedEnvelope } from '../../helpers/paging.js'

const LINE = { type: 'string' }
const TEXT = Array.from({ length: 520 }, (_, i) => `line ${i + 1}`)
const style = lineStyle({ ceiling: 200 })
const schema = style.schema(LINE)

/** The window the style serves of `text`, which must match its schema (a test fails on a throw). */
async function serve (query: { start_line?: number, end_line?: number }, text: readonly string[] = TEXT): Promise<Record<string, unknown>> {
  return await servedEnvelope(style, LINE, query, text)
}

function lines (from: number, to: number): string[] {
  return TEXT.slice(from - 1, to)
}

t.test('the default window: from line 1, maxLines wide, with the resume field and a hint', async (t) => {
  t.strictSame(await serve({}), {
    lines: lines(1, 200),
    start_line: 1,
    end_line: 200,
    returned: 200,
    total_lines: 520,
    has_more: true,
    next_start_line: 201,
    hint: 'Send start_line=201 to get the next lines; repeat until has_more is false.'
  })
})

t.test('the 520-line text, 200 at a time: 200, 200 and 120 lines, the last with nothing to resume', async (t) => {
  const windows = []
  for (let start: unknown = 1; start !== undefined;) {
    const body = await serve({ start_line: start as number })
    windows.push(body)
    start = body.next_start_line
  }
  t.strictSame(windows.map((w) => w.returned), [200, 200, 120])
  t.strictSame(windows.flatMap((w) => w.lines), TEXT)
  t.strictSame(windows[2], { lines: lines(401, 520), start_line: 401, end_line: 520, returned: 120, total_lines: 520, has_more: false })
})

t.test('an explicit window is 1-based and inclusive', async (t) => {
  const body = await serve({ start_line: 10, end_line: 12 })
  t.strictSame(body.lines, ['line 10', 'line 11', 'line 12'])
  t.strictSame([body.returned, body.next_start_line], [3, 13])
})

t.test('a one-line window ending on the last line: has_more false', async (t) => {
  t.strictSame(await serve({ start_line: 520, end_line: 520 }), { lines: ['line 520'], start_line: 520, end_line: 520, returned: 1, total_lines: 520, has_more: false })
})

t.test('an end_line past the end is cut to the last line, which is not a clamp', async (t) => {
  t.strictSame(await serve({ start_line: 400, end_line: 10000 }), { lines: lines(400, 520), start_line: 400, end_line: 520, returned: 121, total_lines: 520, has_more: false })
})

t.test('a window still wider than the ceiling is clamped to start_line + maxLines - 1 and disclosed', async (t) => {
  t.strictSame(await serve({ start_line: 1, end_line: 520 }), {
    lines: lines(1, 200),
    start_line: 1,
    end_line: 200,
    returned: 200,
    total_lines: 520,
    has_more: true,
    next_start_line: 201,
    limit_clamped: true,
    hint: 'Send start_line=201 to get the next lines; repeat until has_more is false; end_line was clamped to 200, as a window holds at most 200 lines.'
  })
})

t.test('a window exactly maxLines wide is not a clamp', async (t) => {
  const body = await serve({ start_line: 2, end_line: 201 })
  t.equal(body.returned, 200)
  t.notOk('limit_clamped' in body)
})

t.test('a start_line past the end: an empty window ending at start_line - 1, nothing more', async (t) => {
  t.strictSame(await serve({ start_line: 521 }), { lines: [], start_line: 521, end_line: 520, returned: 0, total_lines: 520, has_more: false })
  t.strictSame(await serve({ start_line: 600, end_line: 9000 }), { lines: [], start_line: 600, end_line: 599, returned: 0, total_lines: 520, has_more: false })
})

t.test('an empty text is one empty window', async (t) => {
  t.strictSame(await serve({}, []), { lines: [], start_line: 1, end_line: 0, returned: 0, total_lines: 0, has_more: false })
})

t.test('end_line before start_line: a 400 naming end_line and the rule', async (t) => {
  t.throws(() => lineWindow(10, 9, 520), {
    code: 'AG_INVALID_ARGUMENTS',
    statusCode: 400,
    errors: { end_line: ['Must be at least start_line (10): a window runs from start_line to end_line, inclusive.'] }
  })
  t.throws(() => lineWindow(undefined, 0, 520), { code: 'AG_INVALID_ARGUMENTS', statusCode: 400, errors: { end_line: [/start_line \(1\)/] } })
})

t.test('lineWindow: offset and limit for the slice, and the default ceiling', async (t) => {
  t.strictSame(lineWindow(5, 7, 520, 200), { offset: 4, limit: 3, startLine: 5, endLine: 7, total: 520, clamped: false })
  t.strictSame(lineWindow(undefined, undefined, 1000), { offset: 0, limit: LINE_DEFAULTS.ceiling, startLine: 1, endLine: LINE_DEFAULTS.ceiling, total: 1000, clamped: false })
  t.equal(lineStyle().window({}, 1000).limit, LINE_DEFAULTS.ceiling)
  t.equal(LINE_DEFAULTS.ceiling, 200)
})

t.test('the parameters: start_line from 1, end_line from 1 with no maximum', async (t) => {
  const { start_line: start, end_line: end } = style.parameters as Record<string, Record<string, unknown>>
  t.match(start, { type: 'integer', minimum: 1, description: /Default: 1\.$/ })
  t.notOk('default' in start, 'no default keyword: a generated client would send it on every plain call')
  t.match(end, { type: 'integer', minimum: 1 })
  t.equal(end.maximum, Number.MAX_SAFE_INTEGER, 'no maximum but the largest exact integer: more than the ceiling is clamped, not refused')
  t.notOk('default' in end, 'its default depends on start_line, so it is described rather than declared')
  t.match(end.description, /200/)
})

t.test('the schema: the optional fields are optional, every field described', async (t) => {
  t.strictSame(schema.required, ['lines', 'start_line', 'end_line', 'returned', 'total_lines', 'has_more'])
  t.strictSame(Object.keys(schema.properties ?? {}), ['lines', 'start_line', 'end_line', 'returned', 'total_lines', 'has_more', 'next_start_line', 'limit_clamped', 'hint'])
  for (const [name, property] of Object.entries(schema.properties ?? {})) t.type(property.description, 'string', `${name} is described`)
  const whole = lineEnvelope(['a'], { startLine: 1, endLine: 1, total: 1 })
  for (const name of schema.required ?? []) {
    const { [name]: _, ...partial } = whole
    t.not(validationErrors(schema, partial).length, 0, `refused without ${name}`)
  }
})

t.test('a misdeclared ceiling is refused at registration', async (t) => {
  t.throws(() => lineStyle({ ceiling: 0 }), new RangeError('ceiling must be a positive integer; got 0.'))
  t.throws(() => lineStyle({ ceiling: 1.5 }), RangeError)
})
