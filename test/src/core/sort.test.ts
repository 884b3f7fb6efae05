// A list's sort: its one argument (a closed enum, described, beside the filters and the paging
// parameters), the order a checked call becomes for the source (the default's when none is sent),
// the hint that carries it to the next page, a plain client's sorted list, and the refusals at
// registration (a hidden field, no scalar, decimal text, a source that cannot order, a clash).
import t from 'tap'
import Type from 'typebox'
import { compileMount, MountError } from '../../../src/core/index.js'
import { problemOf } from '../../../src/core/problem.js'
import { choices, Decimal, declareRecord, handle, hidden, label, Marking, Nullable } from '../../../src/declare/index.js'
import { toolOf } from '../../../src/mcp/tools.js'
import { signedIn } from '../../../src/permissions.js'
import { arraySource, type ListSource, type Sort } from '../../../src/sources/index.js'
import { plainText as text } from '../../helpers/plain-body.js'

const Entry = declareRecord('Entry', Type.Object({
  id: handle(Type.Integer({ description: 'The id.' })),
  title: label(Type.String({ description: 'The title.' })),
  state: choices([['open', 'Open'], ['done', 'Done']]),
  score: Nullable(Type.Number()),
  price: Decimal(),
  secret: hidden(Type.String()),
  nested: Type.Object({ x: Type.String() }),
  sort: Type.String()
}))

const ROWS = [
  { id: 1, title: 'Delta', state: 'open', score: 2, price: '9.99', secret: 's', nested: { x: 'x' }, sort: 'a' },
  { id: 2, title: 'Alpha', state: 'done', score: null, price: '10.00', secret: 's', nested: { x: 'x' }, sort: 'b' },
  { id: 3, title: 'Charlie', state: 'open', score: 2, price: '1.00', secret: 's', nested: { x: 'x' }, sort: 'c' },
  { id: 4, title: 'Bravo', state: 'done', score: 1, price: '2.00', secret: 's', nested: { x: 'x' }, sort: 'd' }
]

/** An array source that remembers the sort it is asked for, by slice and stream. */
function remembering (): ListSource<any, any> & { asked: Array<Sort | undefined> } {
  const inner = arraySource(ROWS)
  const asked: Array<Sort | undefined> = []
  return {
    ...inner,
    asked,
    slice: async (args, offset, limit, where, sort) => { asked.push(sort); return await inner.slice(args, offset, limit, where, sort) },
    stream: (args, where, context, sort) => { asked.push(sort); return inner.stream(args, where, context, sort) }
  }
}

const base = { kind: 'list', name: 'listEntries', url: '/entries', summary: 'Entries', declaration: Entry, permissions: [signedIn], paging: { style: 'offset', unit: 'entries' } } as const
const mountWith = (sort: any, more: Record<string, unknown> = {}) => compileMount({ ...base, source: arraySource(ROWS), sort, ...more }, { timeZone: 'UTC' })
const ids = (body: unknown): number[] => (body as { items: Array<{ id: number }> }).items.map((item) => item.id)

t.test('one argument, `sort`, optional: each field ascending and descending, closed, described', async (t) => {
  const resource = mountWith({ fields: ['title', 'score'] }, { filters: { state: 'equals' } })
  t.strictSame(Object.keys(resource.query.properties), ['state', 'sort', 'offset', 'limit'])
  t.strictSame(resource.query.required ?? [], [])
  const { sort } = resource.query.properties as unknown as Record<string, Record<string, unknown>>
  t.strictSame(sort.enum, ['title', '-title', 'score', '-score'])
  t.equal(sort.type, 'string')
  t.equal(sort.description, 'The order of the list: a field\'s name for ascending, with a leading - for descending, by one of title, score. Ties keep the list\'s own order (by its key); a missing value comes before every other ascending, after every other descending. Default: the list\'s own order.')
  t.match(mountWith({ fields: ['title'], default: '-title' }).query.properties.sort, { description: /Default: -title\.$/ })
  t.strictSame(Object.keys(compileMount({ ...base, source: arraySource(ROWS) }, { timeZone: 'UTC' }).query.properties), ['offset', 'limit'], 'no sort, no argument')
})

t.test('the MCP tool takes it too: the same enum and words in its input schema', async (t) => {
  const resource = mountWith({ fields: ['title'] })
  const { inputSchema } = toolOf(resource).definition
  t.strictSame((inputSchema.properties as Record<string, unknown>).sort, resource.query.properties.sort)
  t.match((inputSchema.properties as Record<string, unknown>).sort, { type: 'string', enum: ['title', '-title'], description: /Ties keep the list's own order/ })
  t.notOk(inputSchema.required?.includes('sort'), 'optional')
})

t.test('a call\'s sort orders the page and the plain list; none sent, the default or the list\'s own order', async (t) => {
  const source = remembering()
  const resource = compileMount({ ...base, source, sort: { fields: ['title', 'score'] } }, { timeZone: 'UTC' })
  t.strictSame(ids((await resource.serve({ audience: 'agent', query: { sort: 'title' }, params: {} })).body), [2, 4, 3, 1])
  t.strictSame(source.asked.at(-1), { field: 'title', direction: 'asc' })
  t.strictSame(ids((await resource.serve({ audience: 'agent', query: { sort: '-score' }, params: {} })).body), [1, 3, 4, 2], 'ties in the list\'s own order, the missing score last')
  t.strictSame(ids((await resource.serve({ audience: 'agent', query: { sort: 'score' }, params: {} })).body), [2, 4, 1, 3], 'the missing score first')
  t.strictSame(ids((await resource.serve({ audience: 'agent', query: {}, params: {} })).body), [1, 2, 3, 4])
  t.equal(source.asked.at(-1), undefined, 'no sort sent, none asked')
  const plain = await resource.serve({ audience: 'plain', query: { sort: '-title' }, params: {} })
  t.strictSame(JSON.parse(await text(plain.body)).map((row: { id: number }) => row.id), [1, 3, 4, 2], 'a plain client may sort too')
  const usual = compileMount({ ...base, source, sort: { fields: ['title'], default: '-title' } }, { timeZone: 'UTC' })
  t.strictSame(ids((await usual.serve({ audience: 'agent', query: {}, params: {} })).body), [1, 3, 4, 2], 'the default')
  t.strictSame(ids((await usual.serve({ audience: 'agent', query: { sort: 'title' }, params: {} })).body), [2, 4, 3, 1], 'or the one sent')
})

t.test('the next page\'s hint says to send the sort again, after the filters', async (t) => {
  const resource = mountWith({ fields: ['title'] }, { filters: { state: 'equals' } })
  const first = await resource.serve({ audience: 'agent', query: { sort: '-title', state: 'open', limit: '1' }, params: {} })
  t.match(first.body, { items: [{ id: 1 }], next_offset: 1, hint: 'Send offset=1 with the same state and sort to get the next entries; repeat until has_more is false.' })
  const next = await resource.serve({ audience: 'agent', query: { sort: '-title', state: 'open', offset: '1', limit: '1' }, params: {} })
  t.strictSame(ids(next.body), [3])
  const usual = mountWith({ fields: ['title'], default: 'title' })
  t.match((await usual.serve({ audience: 'agent', query: { limit: '1' }, params: {} })).body, { hint: 'Send offset=1 to get the next entries; repeat until has_more is false.' }, 'a default need not be sent again')
})

t.test('a sort that is not one of the values is a 400 naming the argument', async (t) => {
  const resource = mountWith({ fields: ['title'] })
  for (const sort of ['score', '+title', 'Title', '-', ['title', '-title']]) {
    const error = await resource.serve({ audience: 'plain', query: { sort }, params: {} }).catch((refusal: unknown) => refusal)
    t.equal(problemOf(error).status, 400, String(sort))
    t.strictSame(Object.keys(problemOf(error).body.errors ?? {}), ['sort'])
  }
})

t.test('a sort that cannot be served is refused at registration, naming the mount and why, pointing at the value', async (t) => {
  const refused = (sort: any, message: string | RegExp, at: string, more: Record<string, unknown> = {}): void => {
    const wanted = { name: 'MountError', message: typeof message === 'string' ? `Route 'listEntries': ${message}` : message, at }
    t.throws(() => mountWith(sort, more), wanted as unknown as MountError, `at ${at}`)
  }
  refused({ fields: [] }, 'its sort names no field; name at least one, or declare no sort.', '/sort/fields')
  refused({ fields: ['title', 'nope'] }, 'the sort on "nope" names no top-level field of the record.', '/sort/fields/1')
  refused({ fields: ['secret'] }, 'the sort on "secret" is on a field hidden from agents: the order would tell its values; sort on a field agents are shown.', '/sort/fields/0')
  refused({ fields: ['title'] }, /hidden from agents/, '/sort/fields/0', { overrides: { title: Marking.hidden() } })
  t.doesNotThrow(() => mountWith({ fields: ['secret'] }, { overrides: { secret: Marking.content() } }), 'shown by an override, it may be sorted on')
  refused({ fields: ['nested'] }, /the sort on "nested" is on a field that holds no single scalar/, '/sort/fields/0')
  refused({ fields: ['price'] }, 'the sort on "price" is on decimal text, which orders as text (9.99 after 10.00), not as its numbers.', '/sort/fields/0')
  refused({ fields: ['title', 'score', 'title'] }, 'its sort names "title" twice; name each field once.', '/sort/fields/2')
  refused({ fields: ['title'], default: 'score' }, 'its default sort "score" is none of title, -title.', '/sort/default')
  refused({ fields: ['title'] }, 'its sort takes the argument sort, which is already one of its arguments or filters\'; name that one otherwise.', '/sort', { arguments: Type.Object({ sort: Type.String() }) })
  refused({ fields: ['title'] }, /takes the argument sort, which is already/, '/sort', { filters: { sort: 'equals' } })
  t.doesNotThrow(() => mountWith({ fields: ['state'] }), 'a choice sorts by its value')
  const { canSort: _ignored, ...unsortable } = arraySource(ROWS)
  refused({ fields: ['title'] }, 'the sort on "title" cannot be applied by the mount\'s source (it does not order by "title").', '/sort/fields/0', { source: unsortable })
})
