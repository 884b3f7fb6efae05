// A mount is generic over its declaration's row type: a source whose rows do not match the declared
// record does not compile. The `@ts-expect-error` lines are the test: `npm test` type-checks this
// file, and tsc fails on an expected error that does not occur.
import Fastify from 'fastify'
import t from 'tap'
import Type from 'typebox'
import { arraySource, declareRecord, handle, label, signedIn, type ListMount, type RowOf } from '../../../src/index.js'

const Note = declareRecord('Note', Type.Object({
  id: handle(Type.Integer({ description: 'The note\'s identifier.' })),
  title: label(Type.String({ description: 'The title.' }))
}, { description: 'A note.' }))

/** What `app.mount` accepts, without an app. */
function listMount<Args, Row> (mount: ListMount<Args, Row>): ListMount<Args, Row> {
  return mount
}

const base = { kind: 'list', name: 'listNotes', url: '/notes', summary: 'List the notes', declaration: Note, permissions: [signedIn] } as const

t.test('rows that match the declared record compile', async (t) => {
  const rows: Array<RowOf<typeof Note>> = [{ id: 1, title: 'First' }]
  t.equal(listMount({ ...base, source: arraySource(rows) }).declaration, Note)
  // Extra columns are allowed: the plain schema serializes only what the record declares.
  t.equal(listMount({ ...base, source: arraySource([{ id: 1, title: 'First', owner: 7 }]) }).name, 'listNotes')
})

t.test('rows missing a declared field, or with a field of another type, do not compile', async (t) => {
  // @ts-expect-error rows without `title` are not Notes
  const missing = listMount({ ...base, source: arraySource([{ id: 1 }]) })
  // @ts-expect-error an `id` that is a string is not a Note's integer id
  const mistyped = listMount({ ...base, source: arraySource([{ id: '1', title: 'First' }]) })
  t.equal(missing.kind, 'list')
  t.equal(mistyped.kind, 'list')
})

t.test('app.mount checks the same', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  // Only the types are under test: app.mount is never called here.
  const mount: typeof app.mount = () => {}
  // @ts-expect-error app.mount refuses rows that are not Notes
  mount({ ...base, source: arraySource([{ id: 1 }]) })
  mount({ ...base, source: arraySource([{ id: 1, title: 'First' }]) })
  t.pass('type-checked')
})
