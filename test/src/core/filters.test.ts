// A mount's filters: their arguments (names, schemas, words), refused where they cannot be served
// (a hidden field, a type the kind cannot compare, a source that cannot apply them, a clash), and
// the conditions a checked call becomes: values as stored, date-times in UTC to the second.
import t from 'tap'
import Type from 'typebox'
import { compileMount, MountError } from '../../../src/core/index.js'
import { choices, Decimal, declareRecord, handle, hidden, label, Marking, Nullable } from '../../../src/declare/index.js'
import { signedIn } from '../../../src/permissions.js'
import { arraySource, type Condition, type ListSource } from '../../../src/sources/index.js'
import { problemOf } from '../../../src/core/problem.js'

const Entry = declareRecord('Entry', Type.Object({
  id: handle(Type.Integer({ description: 'The id.' })),
  title: label(Type.String({ description: 'The title.' })),
  state: choices([['open', 'Open'], ['done', 'Done'], ['todo', 'todo']], { description: 'The state.' }),
  level: choices([[1, 'Low'], [2, 'High']], { nullable: true }),
  plain: choices({ a: 'a', b: 'b' }),
  score: Type.Number(),
  flag: Type.Boolean(),
  due_on: Nullable(Type.String({ format: 'date' })),
  at: Type.String({ format: 'date-time' }),
  price: Decimal(),
  secret: hidden(Type.String()),
  nested: Type.Object({ x: Type.String() }),
  list: Type.Array(Type.String())
}))

const ROWS = [
  { id: 1, title: 'Alpha', state: 'open', level: 1, plain: 'a', score: 1.5, flag: true, due_on: '2026-01-10', at: '2026-01-31T12:05:09Z', price: '9.99', secret: 's1', nested: { x: 'x' }, list: [] },
  { id: 2, title: 'Beta', state: 'done', level: 2, plain: 'b', score: 2.5, flag: false, due_on: null, at: '2026-01-31T12:05:10Z', price: '1.00', secret: 's2', nested: { x: 'y' }, list: ['z'] },
  { id: 3, title: 'alpine', state: 'done', level: null, plain: 'a', score: 3.5, flag: true, due_on: '2026-03-01', at: '2026-02-01T00:00:00Z', price: '2.00', secret: 's3', nested: { x: 'z' }, list: [] }
]

/** A source that remembers the conditions it is asked with. */
function remembering (): ListSource<any, any> & { asked: Array<readonly Condition[] | undefined> } {
  const inner = arraySource(ROWS)
  const asked: Array<readonly Condition[] | undefined> = []
  return {
    asked,
    canFilter: inner.canFilter,
    count: async (args, where) => { asked.push(where); return await inner.count(args, where) },
    slice: inner.slice,
    stream: (args, where) => { asked.push(where); return inner.stream(args, where) }
  }
}

const base = { kind: 'list', name: 'listEntries', url: '/entries', summary: 'Entries', declaration: Entry, permissions: [signedIn], paging: { style: 'offset', unit: 'entries' } } as const
const mountWith = (filters: Record<string, any>, more: Record<string, unknown> = {}) => compileMount({ ...base, source: arraySource(ROWS), filters, ...more }, { timeZone: 'UTC' })

t.test('each kind takes its arguments, optional, beside the paging parameters; the query stays closed', async (t) => {
  const resource = mountWith({ state: 'equals', score: 'range', title: ['prefix', 'equals'] })
  t.strictSame(Object.keys(resource.query.properties), ['state', 'score_min', 'score_max', 'title_prefix', 'title', 'offset', 'limit'])
  t.strictSame(resource.query.required ?? [], [])
  t.equal((resource.query as { additionalProperties?: unknown }).additionalProperties, false)
  const unfiltered = mountWith({})
  t.strictSame(unfiltered.query.properties, compileMount({ ...base, source: arraySource(ROWS) }, { timeZone: 'UTC' }).query.properties, 'no filters, no arguments')
  t.match((await unfiltered.serve({ audience: 'agent', query: {}, params: {} })).body, { total_entries: 3 })
})

t.test('a choice is filtered by its value, listed with what is shown for it', async (t) => {
  const { properties } = mountWith({ state: 'equals', level: 'equals', plain: 'equals' }).query as unknown as { properties: Record<string, Record<string, unknown>> }
  t.strictSame(properties.state, { type: 'string', enum: ['open', 'done', 'todo'], description: 'Filter: only the records whose state is this value, one of open (shown as "Open"), done (shown as "Done"), todo: send the value, not what is shown.' })
  t.strictSame([properties.level.type, properties.level.enum], ['integer', [1, 2]], 'null cannot be sent: it is no value to filter by')
  t.match(properties.plain, { type: 'string', enum: ['a', 'b'], description: /one of a, b:/ })
})

t.test('the argument schemas of each type', async (t) => {
  const { properties } = mountWith({ id: ['equals', 'range'], score: 'range', flag: 'equals', due_on: ['equals', 'range'], at: ['equals', 'range'], price: 'equals', title: 'prefix' }).query as unknown as { properties: Record<string, Record<string, unknown>> }
  t.match(properties.id, { type: 'integer', description: 'Filter: only the records whose id is exactly this.' })
  t.match(properties.id_min, { type: 'integer', description: 'Filter: only the records whose id is at least this.' })
  t.match(properties.score_max, { type: 'number', description: 'Filter: only the records whose score is at most this.' })
  t.match(properties.flag, { type: 'boolean' })
  t.match(properties.due_on, { type: 'string', format: 'date' })
  t.match(properties.due_on_min, { type: 'string', format: 'date', description: /on or after this day/ })
  t.match(properties.due_on_max, { description: /on or before this day/ })
  t.match(properties.at, { type: 'string', format: 'date-time', description: /exactly this\. An ISO 8601 date-time/ })
  t.match(properties.at_min, { format: 'date-time', description: /at or after this instant/ })
  t.match(properties.at_max, { description: /at or before this instant/ })
  t.match(properties.price, { type: 'string', format: 'decimal' })
  t.match(properties.title_prefix, { type: 'string', minLength: 1, description: /starts with this text/ })
})

t.test('a call\'s filters become conditions for the count and the page; a plain client\'s stream is filtered too', async (t) => {
  const source = remembering()
  const resource = compileMount({ ...base, source, filters: { state: 'equals', score: 'range', title: 'prefix', flag: 'equals' } }, { timeZone: 'UTC' })
  const served = await resource.serve({ audience: 'agent', query: { state: 'done', score_min: '2', title_prefix: 'Be', flag: 'false', limit: '5' }, params: {} })
  t.match(served.body, { items: [{ id: 2, title: 'Beta', state: 'Done' }], total_entries: 1 })
  t.strictSame(source.asked[0], [
    { field: 'state', op: 'equals', value: 'done' },
    { field: 'score', op: 'min', value: 2 },
    { field: 'title', op: 'prefix', value: 'Be' },
    { field: 'flag', op: 'equals', value: false }
  ])
  const plain = await resource.serve({ audience: 'plain', query: { score_max: '2' }, params: {} })
  t.equal(plain.kind, 'json-array')
  t.strictSame(source.asked[1], [{ field: 'score', op: 'max', value: 2 }])
  await resource.serve({ audience: 'agent', query: {}, params: {} })
  t.strictSame(source.asked[2], [], 'no filter sent, no condition')
  const walked = await resource.serve({ audience: 'agent', query: { state: 'done', score_min: '1', title_prefix: 'B', limit: '0' }, params: {} }).catch(() => undefined)
  t.equal(walked, undefined, 'limit 0 is refused')
  const next = await resource.serve({ audience: 'agent', query: { score_min: '1', title_prefix: 'B', flag: 'false', limit: '1' }, params: {} })
  t.match(next.body, { total_entries: 1 })
  const paged = await resource.serve({ audience: 'agent', query: { score_min: '1', score_max: '9', flag: 'true', limit: '1' }, params: {} })
  t.match(paged.body, { has_more: true, hint: 'Send offset=1 with the same score_min, score_max and flag to get the next entries; repeat until has_more is false.' }, 'every filter sent, named in the order declared')
})

t.test('a date-time is compared in UTC, to the second: a fraction rounds a bound inward, a leap second is the next second', async (t) => {
  const source = remembering()
  const resource = compileMount({ ...base, source, filters: { at: ['equals', 'range'] } }, { timeZone: 'UTC' })
  const conditions = async (query: Record<string, string>): Promise<readonly Condition[] | undefined> => {
    await resource.serve({ audience: 'agent', query, params: {} })
    return source.asked.at(-1)
  }
  t.strictSame(await conditions({ at: '2026-01-31T13:05:09+01:00' }), [{ field: 'at', op: 'equals', value: '2026-01-31T12:05:09Z' }])
  t.strictSame(await conditions({ at: '2026-01-31T12:05:09.250Z' }), [{ field: 'at', op: 'equals', value: '2026-01-31T12:05:09.250Z' }], 'an instant between seconds equals no second')
  t.strictSame(await conditions({ at_min: '2026-01-31t12:05:09.2z', at_max: '2026-01-31T12:05:10.9Z' }), [
    { field: 'at', op: 'min', value: '2026-01-31T12:05:10Z' },
    { field: 'at', op: 'max', value: '2026-01-31T12:05:10Z' }
  ])
  t.strictSame(await conditions({ at_min: '2016-12-31T23:59:60Z' }), [{ field: 'at', op: 'min', value: '2017-01-01T00:00:00Z' }])
  t.strictSame(await conditions({ at_max: '2016-12-31T18:59:60-05:00' }), [{ field: 'at', op: 'max', value: '2017-01-01T00:00:00Z' }])
  const served = await resource.serve({ audience: 'agent', query: { at_min: '2026-01-31T13:05:09.5+01:00' }, params: {} })
  t.match(served.body, { items: [{ id: 2 }, { id: 3 }], total_entries: 2 })
})

t.test('a malformed filter value is a 400 naming the argument, as any other argument', async (t) => {
  const resource = mountWith({ state: 'equals', id: 'range', at: 'range', due_on: 'range', title: 'prefix', flag: 'equals', score: 'range', price: 'equals' })
  const refused = async (query: Record<string, unknown>): Promise<Record<string, string[]> | undefined> => {
    try {
      await resource.serve({ audience: 'plain', query, params: {} })
    } catch (error) {
      const { status, body } = problemOf(error)
      t.equal(status, 400)
      return body.errors
    }
    t.fail('served')
  }
  t.strictSame(await refused({ state: 'Done' }), { state: ['Must be equal to one of the allowed values.'] })
  t.strictSame(await refused({ id_min: '1.5' }), { id_min: ['Must be an integer written in plain decimal digits, such as 42: no exponent, decimal point, leading zero, plus sign or other base.'] })
  t.strictSame(await refused({ at_min: '2026-01-31', at_max: '2026-02-30T00:00:00Z' }), { at_min: ['Must match format "date-time".'], at_max: ['Must match format "date-time".'] })
  t.strictSame(await refused({ due_on_max: '31/01/2026' }), { due_on_max: ['Must match format "date".'] })
  t.strictSame(await refused({ title_prefix: '' }), { title_prefix: ['Must NOT have fewer than 1 characters.'] })
  t.strictSame(await refused({ flag: 'yes' }), { flag: ['Must be boolean.'] })
  t.strictSame(await refused({ price: '9,99' }), { price: ['Must match format "decimal".'] })
  for (const score of ['abc', 'Infinity', '1e400', '1e3', '0x10', ' 1', '01.5', '+1', '1.', '9'.repeat(400)]) {
    t.strictSame(await refused({ score_min: score }), { score_min: ['Must be a number written in plain decimal digits, such as 42 or 4.25: no exponent, leading zero, plus sign or other base.'] }, score)
  }
  t.strictSame(await refused({ state: ['open', 'done'] }), { state: ['Given more than once: send it once.'] })
  t.strictSame(await refused({ state_prefix: 'o' }), { state_prefix: ['Unknown argument.'] }, 'a kind not declared takes no argument')
})

t.test('a number is a plain decimal, or a finite JSON number from a transport that sends JSON', async (t) => {
  const resource = mountWith({ score: 'range' })
  const served = async (query: Record<string, unknown>): Promise<unknown> => (await resource.serve({ audience: 'agent', query, params: {} })).body
  t.match(await served({ score_min: '-0.5', score_max: '2.5' }), { total_entries: 2 })
  t.match(await served({ score_min: 3 }), { total_entries: 1 })
  const error = await served({ score_min: Infinity }).catch((refusal: unknown) => refusal)
  t.match(problemOf(error).body.errors, { score_min: [/plain decimal digits/] })
})

t.test('a filter that cannot be served is refused at registration, naming it', async (t) => {
  const refusal = (filters: Record<string, any>, more: Record<string, unknown> = {}): string => {
    try {
      mountWith(filters, more)
    } catch (error) {
      t.type(error, MountError)
      return (error as Error).message
    }
    return 'registered'
  }
  t.equal(refusal({ title: 'between' }), 'Route \'listEntries\': the between filter on "title" is of no kind a filter has: equals, range or prefix.')
  t.equal(refusal({ nope: 'equals' }), 'Route \'listEntries\': the equals filter on "nope" names no top-level field of the record.')
  t.equal(refusal({ secret: 'equals' }), 'Route \'listEntries\': the equals filter on "secret" is on a field hidden from agents: its values would be learned by filtering; filter on a field agents are shown.')
  t.match(refusal({ title: 'equals' }, { overrides: { title: Marking.hidden() } }), /filter on "title" is on a field hidden from agents/, 'hidden by an override too')
  t.equal(refusal({ secret: 'equals' }, { overrides: { secret: Marking.content() } }), 'registered', 'shown by an override, it may be filtered')
  t.match(refusal({ nested: 'equals' }), /the equals filter on "nested" is on a field that holds no single scalar/)
  t.match(refusal({ list: 'prefix' }), /filter on "list" is on a field that holds no single scalar/)
  t.equal(refusal({ state: 'range' }), 'Route \'listEntries\': the range filter on "state" needs an integer, a number, a date or a date-time field, not a choice.')
  t.match(refusal({ title: 'range' }), /needs an integer, a number, a date or a date-time field, not a string\.$/)
  t.match(refusal({ price: 'range' }), /not a decimal\.$/, 'a decimal stored as text has no order a source can compare')
  t.match(refusal({ flag: 'range' }), /not a boolean\.$/)
  t.equal(refusal({ state: 'prefix' }), 'Route \'listEntries\': the prefix filter on "state" needs a text field without a format or choices.')
  t.match(refusal({ at: 'prefix' }), /prefix filter on "at" needs a text field/)
  t.match(refusal({ id: 'prefix' }), /prefix filter on "id" needs a text field/)
  t.equal(refusal({ title: ['equals', 'equals'] }), 'Route \'listEntries\': two filters take the argument title; declare each kind once per field.')
  t.equal(refusal({ title: 'equals' }, { arguments: Type.Object({ title: Type.String() }) }), 'Route \'listEntries\': title is both a declared argument and a filter\'s; name the argument otherwise.')
  t.equal(refusal({ id: 'range' }, { paging: { style: 'offset', unit: 'entries' }, arguments: Type.Object({}) }), 'registered')
  t.throws(() => mountWith({ limit: 'equals' }), /names no top-level field/)
  const { canFilter: _ignored, ...unfilterable } = arraySource(ROWS)
  t.throws(() => compileMount({ ...base, source: unfilterable, filters: { title: 'prefix' } }, { timeZone: 'UTC' }), new MountError('Route \'listEntries\': the prefix filter on "title" cannot be applied by the mount\'s source (it does not filter "title" by prefix).'))
})

t.test('a filter argument named like a paging parameter is refused', async (t) => {
  const Paged = declareRecord('Paged', Type.Object({ id: handle(Type.Integer()), limit: Type.Integer() }))
  t.throws(() => compileMount({ ...base, declaration: Paged, source: arraySource([]), filters: { limit: 'equals' } }, { timeZone: 'UTC' }), new MountError('Route \'listEntries\': limit is a parameter of its paging style; name the argument otherwise.'))
})
