// A NULL in a field its record does not admit null for is refused, never served as a made-up value:
// before anything is sent where it can be, by cutting the plain stream where it cannot.
import type { Readable } from 'node:stream'
import t from 'tap'
import Type from 'typebox'
import { compileMount, PROBLEM_KINDS, type ListMount } from '../../../src/core/index.js'
import { declareRecord, Nullable } from '../../../src/declare/index.js'
import { unrestricted } from '../../../src/permissions.js'
import { arrayRecordSource, arraySource } from '../../../src/sources/index.js'
import { refusingNulls } from '../../../src/core/stored-values.js'
import { CHUNK_BYTES } from '../../../src/core/json-array.js'

const Task = declareRecord('Task', Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  note: Nullable(Type.String()),
  done: Type.Optional(Type.Boolean()),
  extra: Type.Unsafe({ description: 'states no type: admits anything' })
}))

const settings = { timeZone: 'UTC' }
const rows = (count: number, nullAt: number): Array<Record<string, unknown>> =>
  Array.from({ length: count }, (_, i) => ({ id: i, title: i === nullAt ? null : `Task ${i}`, note: null, extra: null }))
const listOf = (data: Array<Record<string, unknown>>): ListMount => ({ kind: 'list', name: 'listTasks', url: '/tasks', summary: 'List the tasks', declaration: Task, source: arraySource(data), permissions: [unrestricted] })
const refusal = { code: 'AG_STORED_VALUE_INVALID', statusCode: 502, message: /^Record Task's field "title" holds NULL, which its declaration does not admit \(it is not nullable\)/ }

t.test('the refusal is a 502 of the registry', async (t) => {
  t.equal(PROBLEM_KINDS.AG_STORED_VALUE_INVALID.status, 502)
})

t.test('nulls where the record admits them, or states no type, pass as they are', async (t) => {
  const served = await compileMount(listOf(rows(3, -1)), settings).serve({ audience: 'agent', query: {}, params: {} })
  t.match(served.body, { items: [{ note: null, extra: null }, { note: null }, { note: null }] })
})

t.test('an agent\'s page holding a NULL in a field not nullable is refused', async (t) => {
  const resource = compileMount(listOf(rows(5, 3)), settings)
  await t.rejects(resource.serve({ audience: 'agent', query: { limit: '10' }, params: {} }), refusal)
  // A page without the row is served.
  t.match((await resource.serve({ audience: 'agent', query: { limit: '3' }, params: {} })).body, { items: { length: 3 } })
})

t.test('a plain list refuses before sending when its first rows hold the NULL', async (t) => {
  await t.rejects(compileMount(listOf(rows(5, 0)), settings).serve({ audience: 'plain', query: {}, params: {} }), refusal)
})

t.test('a plain list whose NULL comes after its first batch is cut short, never completed', async (t) => {
  // Each row's text is at least 45 characters: the NULL comes once a whole chunk has been written.
  const nullAt = Math.ceil(CHUNK_BYTES / 45) + 100
  const served = await compileMount(listOf(rows(nullAt + 400, nullAt)), settings).serve({ audience: 'plain', query: {}, params: {} })
  t.equal(served.kind, 'json-array')
  let text = ''
  const read = (async () => { for await (const chunk of served.body as Readable) text += String(chunk) })()
  await t.rejects(read, refusal)
  t.notOk(text.endsWith(']'), 'the array is never closed')
  t.notMatch(text, /"title":""/, 'no made-up value was written')
})

t.test('one record holding the NULL is refused to both audiences', async (t) => {
  const resource = compileMount({ kind: 'retrieve', name: 'getTask', url: '/tasks/:id', summary: 'Get a task', declaration: Task, params: Type.Object({ id: Type.Integer() }), source: arrayRecordSource(rows(2, 1), (row, args: { id: number }) => row.id === args.id), permissions: [unrestricted] }, settings)
  for (const audience of ['plain', 'agent'] as const) {
    await t.rejects(resource.serve({ audience, query: {}, params: { id: '1' } }), refusal)
    t.match((await resource.serve({ audience, query: {}, params: { id: '0' } })).body, { title: 'Task 0' })
  }
  t.ok(resource.problems.includes('AG_STORED_VALUE_INVALID'), 'published among its problems')
})

t.test('a record every field of which admits null presents its rows unchecked', async (t) => {
  const present = (row: object): object => row
  t.equal(refusingNulls(declareRecord('Loose', Type.Object({ a: Nullable(Type.String()) })), present), present)
})

t.test('fields named with what a string literal escapes are checked by name, the first holding NULL named', async (t) => {
  const names = ['a"b', 'c\\d', 'e\nf', 'g\u2028h', "i'j", '} : (', 'constructor']
  const record = declareRecord('Odd', Type.Object(Object.fromEntries([...names.map((name) => [name, Type.String()]), ['loose', Nullable(Type.String())]])))
  const present = refusingNulls(record, (row: Record<string, unknown>) => row)
  const full = Object.fromEntries(names.map((name) => [name, 'x']))
  t.strictSame(present({ ...full, loose: null }), { ...full, loose: null }, 'a NULL where null is admitted is served')
  for (const [i, name] of names.entries()) {
    const held = { ...full, [name]: null, ...Object.fromEntries(names.slice(i + 1).map((later) => [later, null])) }
    t.throws(() => present(held), { message: `field "${name}" holds NULL` }, `field ${i + 1} of ${names.length} named first`)
  }
})
