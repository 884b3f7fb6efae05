// Every example of the source document for the books record, exactly.
import t from 'tap'
import { Book } from '../../../routes/books/book.js'
import { projectSchema, buildProjection, projectPayload, ProjectionError } from '../../../src/projection/index.js'
import { Marking } from '../../../src/declare/index.js'
import { deepFreeze } from '../../helpers/freeze.js'
import { validationErrors } from '../../helpers/ajv.js'

const HANDLE_DESCRIPTION = 'An identifier to pass to other tools. Never read it out.'

const rows = deepFreeze([
  { id: 1, title: 'The Dispossessed', status: 'published', price: '9.99', published_on: '1974-05-01', author_id: 1 },
  { id: 2, title: 'The Lathe of Heaven', status: 'draft', price: '9.99', published_on: null, author_id: 1 },
  { id: 3, title: 'A Wizard of Earthsea', status: 'published', price: '9.99', published_on: '1968-11-01', author_id: 1 }
])

const plainSchema = deepFreeze(Book.schema)
const projection = buildProjection(plainSchema, { name: 'Tool \'list_books\'' })
const withAuthors = buildProjection(plainSchema, { name: 'Tool \'books_with_authors\'', overrides: { author_id: Marking.handle() } })

/** The schema without descriptions, which the source document's examples do not show. */
function withoutDescriptions (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'description').map(([key, v]) => [key, withoutDescriptions(v)]))
}

t.test('the agent item schema is the source document\'s', async (t) => {
  const item = projectSchema(plainSchema, projection, { handleDescription: HANDLE_DESCRIPTION })
  t.strictSame(withoutDescriptions(item), {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      title: { type: 'string' },
      status: { type: 'string', oneOf: [{ const: 'Draft' }, { const: 'Published' }] },
      price: { type: 'string', examples: ['EUR 9.99'] },
      published_on: { type: ['string', 'null'], examples: ['31 January 2026'] }
    },
    required: ['id', 'title', 'status', 'price', 'published_on']
  })
})

t.test('the agent item schema keeps the declaration\'s descriptions, the handle gets the transport\'s', async (t) => {
  t.strictSame(projectSchema(plainSchema, projection, { handleDescription: HANDLE_DESCRIPTION }), {
    type: 'object',
    description: 'A book in the catalogue.',
    properties: {
      id: { type: 'integer', description: HANDLE_DESCRIPTION },
      title: { type: 'string', description: 'The title.' },
      status: { type: 'string', oneOf: [{ const: 'Draft' }, { const: 'Published' }], description: 'Where the book is in its life.' },
      price: { type: 'string', examples: ['EUR 9.99'], description: 'The price in euros.' },
      published_on: { type: ['string', 'null'], examples: ['31 January 2026'], description: 'The day the book came out, if it has.' }
    },
    required: ['id', 'title', 'status', 'price', 'published_on']
  })
})

t.test('page 2 at a limit of 2 projects to the source document\'s row', async (t) => {
  t.strictSame(projectPayload(rows.slice(2), projection), [
    { id: 3, title: 'A Wizard of Earthsea', status: 'Published', price: 'EUR 9.99', published_on: '01 November 1968' }
  ])
})

t.test('every row projected', async (t) => {
  t.strictSame(projectPayload(rows, projection), [
    { id: 1, title: 'The Dispossessed', status: 'Published', price: 'EUR 9.99', published_on: '01 May 1974' },
    { id: 2, title: 'The Lathe of Heaven', status: 'Draft', price: 'EUR 9.99', published_on: null },
    { id: 3, title: 'A Wizard of Earthsea', status: 'Published', price: 'EUR 9.99', published_on: '01 November 1968' }
  ])
})

t.test('a second mount overrides author_id to a handle: the source document\'s row', async (t) => {
  t.strictSame(projectPayload(rows[0], withAuthors), {
    id: 1, title: 'The Dispossessed', status: 'Published', price: 'EUR 9.99', published_on: '01 May 1974', author_id: 1
  })
})

t.test('the second mount\'s schema keeps author_id, as a handle, required', async (t) => {
  const schema = projectSchema(plainSchema, withAuthors, { handleDescription: HANDLE_DESCRIPTION })
  t.strictSame(schema.properties?.author_id, { type: 'integer', description: HANDLE_DESCRIPTION })
  t.strictSame(schema.required, ['id', 'title', 'status', 'price', 'published_on', 'author_id'])
})

t.test('the first mount is unchanged by the second', async (t) => {
  t.strictSame(projectPayload(rows[0], projection), {
    id: 1, title: 'The Dispossessed', status: 'Published', price: 'EUR 9.99', published_on: '01 May 1974'
  })
  t.notOk(Object.hasOwn(projectSchema(plainSchema, projection).properties ?? {}, 'author_id'))
})

t.test('an override that leaves two labels is refused in the mount\'s name', async (t) => {
  t.throws(
    () => buildProjection(Book.schema, { name: 'Tool \'books_with_authors\'', overrides: { author_id: Marking.label() } }),
    new ProjectionError('Tool \'books_with_authors\': a record has one label, but "title" and "author_id" are both marked as the label.')
  )
})

t.test('the plain rows are every field, raw: the source document\'s', async (t) => {
  t.strictSame(rows[0], { id: 1, title: 'The Dispossessed', status: 'published', price: '9.99', published_on: '1974-05-01', author_id: 1 })
})

t.test('the plain rows validate against the plain schema', async (t) => {
  t.strictSame(validationErrors({ type: 'array', items: plainSchema }, rows), [])
})

t.test('every projected row validates against the agent schema, on both mounts', async (t) => {
  const item = projectSchema(plainSchema, projection, { handleDescription: HANDLE_DESCRIPTION })
  const withAuthorsItem = projectSchema(plainSchema, withAuthors, { handleDescription: HANDLE_DESCRIPTION })
  t.strictSame(validationErrors({ type: 'array', items: item }, projectPayload(rows, projection)), [])
  t.strictSame(validationErrors({ type: 'array', items: withAuthorsItem }, projectPayload(rows, withAuthors)), [])
})

t.test('the projected rows are refused by the plain schema, so the validations say something', async (t) => {
  t.ok(validationErrors({ type: 'array', items: plainSchema }, projectPayload(rows, projection)).length > 0)
})
