// GET /books/{id}/text: the whole text to a plain client, line windows to an agent, through the
// real app; every body checked against the schema the route declares for what it answered.
import t from 'tap'
import Type from 'typebox'
import { AGENT_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../../src/audience.js'
import { compileMount, MountError } from '../../src/core/index.js'
import { unrestricted } from '../../src/permissions.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const { declaredSchema, checkedGet } = await buildApp(t)

const ROUTE = '/books/:id/text'
const TEXT = Array.from({ length: 520 }, (_, i) => `The Dispossessed, line ${i + 1} of 520.`)

interface Window {
  lines: string[]
  start_line: number
  end_line: number
  returned: number
  total_lines: number
  has_more: boolean
  next_start_line?: number
  limit_clamped?: true
  hint?: string
}

/** GETs `url` and checks the body against the schema the route declares for what it answered. */
const get = async (url: string, headers: Record<string, string> = AGENT) => await checkedGet(t, url, headers, ROUTE)

async function window (query: string): Promise<Window> {
  const res = await get(`/books/1/text?${query}`)
  t.equal(res.statusCode, 200, query)
  t.equal(res.headers['content-type'], `${AGENT_MEDIA_TYPE}; charset=utf-8`)
  return res.json()
}

t.test('a plain client gets the whole text as text/plain: 520 lines', async (t) => {
  const res = await get('/books/1/text', AUTH)
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.match(res.headers.vary, /Accept/)
  t.equal(res.body, TEXT.map((line) => `${line}\n`).join(''))
  t.equal(res.body.split('\n').length - 1, 520)
})

t.test('each book has its own text', async (t) => {
  const res = await get('/books/3/text', AUTH)
  t.match(res.body, /^A Wizard of Earthsea, line 1 of 520\.\n/)
})

t.test('paged 200 at a time: windows of 200, 200 and 120 lines, the last with no next_start_line', async (t) => {
  const windows: Window[] = []
  for (let start: number | undefined = 1; start !== undefined; start = windows.at(-1)?.next_start_line) {
    windows.push(await window(`start_line=${start}`))
  }
  t.strictSame(windows.map((w) => [w.start_line, w.end_line, w.returned]), [[1, 200, 200], [201, 400, 200], [401, 520, 120]])
  t.strictSame(windows.flatMap((w) => w.lines), TEXT, 'every line once, in order')
  t.strictSame(windows.map((w) => w.total_lines), [520, 520, 520])
  t.equal(windows[0].hint, 'Send start_line=201 to get the next lines; repeat until has_more is false.')
  t.strictSame({ ...windows[2], lines: undefined }, { lines: undefined, start_line: 401, end_line: 520, returned: 120, total_lines: 520, has_more: false })
})

t.test('an explicit window: 1-based and inclusive', async (t) => {
  const body = await window('start_line=10&end_line=12')
  t.strictSame(body.lines, TEXT.slice(9, 12))
  t.strictSame([body.returned, body.has_more, body.next_start_line], [3, true, 13])
})

t.test('an end_line past the end is cut to the last line, not clamped', async (t) => {
  const body = await window('start_line=400&end_line=100000')
  t.strictSame({ ...body, lines: undefined }, { lines: undefined, start_line: 400, end_line: 520, returned: 121, total_lines: 520, has_more: false })
})

t.test('a window wider than 200 lines is clamped and disclosed', async (t) => {
  const body = await window('end_line=520')
  t.strictSame([body.start_line, body.end_line, body.returned, body.limit_clamped, body.next_start_line], [1, 200, 200, true, 201])
  t.equal(body.hint, 'Send start_line=201 to get the next lines; repeat until has_more is false; end_line was clamped to 200, as a window holds at most 200 lines.')
})

t.test('a start_line past the end: an empty window, has_more false', async (t) => {
  t.strictSame(await window('start_line=521'), { lines: [], start_line: 521, end_line: 520, returned: 0, total_lines: 520, has_more: false })
  t.strictSame(await window('start_line=900'), { lines: [], start_line: 900, end_line: 899, returned: 0, total_lines: 520, has_more: false })
})

t.test('the agent window is negotiated by Accept too; text/plain asks for the whole text', async (t) => {
  const agent = await get('/books/1/text', { ...AUTH, accept: `text/plain;q=0.5, ${AGENT_MEDIA_TYPE}` })
  t.equal(agent.json().returned, 200)
  const plain = await get('/books/1/text', { ...AUTH, accept: 'text/plain' })
  t.equal(plain.headers['content-type'], 'text/plain; charset=utf-8')
})

t.test('nothing acceptable (application/json): 406 listing text/plain and the agent type', async (t) => {
  const res = await get('/books/1/text', { ...AUTH, accept: 'application/json' })
  t.equal(res.statusCode, 406)
  t.match(res.json().detail, 'text/plain')
  t.match(res.json().detail, AGENT_MEDIA_TYPE)
})

t.test('invalid values: a 400 naming the parameter and the rule', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['start_line=0', 'start_line', />= 1|at least 1/],
    ['start_line=10&end_line=9', 'end_line', /at least start_line \(10\)/],
    ['end_line=0', 'end_line', />= 1|at least/],
    ['start_line=1.5', 'start_line', /integer/],
    ['end_line=abc', 'end_line', /integer/]
  ]
  for (const [query, name, rule] of cases) {
    const res = await get(`/books/1/text?${query}`)
    t.equal(res.statusCode, 400, query)
    t.equal(res.headers['content-type'], `${PROBLEM_MEDIA_TYPE}; charset=utf-8`)
    const { errors } = res.json()
    t.strictSame(Object.keys(errors), [name], `${query} names ${name}`)
    t.match(errors[name].join(' '), rule, `${query} says the rule`)
  }
})

t.test('window parameters from a plain client: 400 saying they apply to agents', async (t) => {
  const res = await get('/books/1/text?start_line=2&end_line=3', AUTH)
  t.equal(res.statusCode, 400)
  const { errors } = res.json()
  t.strictSame(Object.keys(errors), ['start_line', 'end_line'])
  t.match(errors.start_line[0], /agents only/)
})

t.test('an unknown argument: 400 naming it', async (t) => {
  const res = await get('/books/1/text?page=2')
  t.equal(res.statusCode, 400)
  t.strictSame(res.json().errors, { page: ['Unknown argument.'] })
})

t.test('an unknown book: 404, for either audience', async (t) => {
  for (const headers of [AUTH, AGENT]) {
    const res = await get('/books/99/text', headers)
    t.equal(res.statusCode, 404)
    t.match(res.json().detail, '/books/99/text')
  }
})

t.test('no key: 401', async (t) => {
  const res = await get('/books/1/text', {})
  t.equal(res.statusCode, 401)
  t.match(res.headers['www-authenticate'], /^Bearer/)
})

t.test('the plain response is declared as text/plain, beside the agent window', async (t) => {
  t.strictSame(declaredSchema(ROUTE, 200, 'text/plain'), { type: 'string', description: 'The whole text, each line ended by a line feed.' })
  const agent = declaredSchema(ROUTE, 200, AGENT_MEDIA_TYPE) as { required: string[] }
  t.strictSame(agent.required, ['lines', 'start_line', 'end_line', 'returned', 'total_lines', 'has_more'])
})

t.test('a text mount refuses arguments named like its window parameters', async (t) => {
  t.throws(() => compileMount({
    kind: 'text',
    name: 'readLog',
    url: '/log',
    summary: 'Read the log',
    arguments: Type.Object({ start_line: Type.Integer(), end_line: Type.Integer() }),
    source: { lines: async () => [] },
    permissions: [unrestricted]
  }, { timeZone: 'UTC' }), new MountError('Route \'readLog\': start_line, end_line are parameters of its paging style; name the argument otherwise.'))
})
