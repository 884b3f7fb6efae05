// The document reader the properties check every answer with (test/helpers/openapi.ts): it finds
// a response by its code or range and no other way, inlines components, and refuses what it cannot.
import t from 'tap'
import { documentedResponses, mediaTypeOf, resolveRefs, type OpenApiDocument } from '../helpers/openapi.js'

const PROBLEM = 'application/problem+json'

const document: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/things/{id}': {
      parameters: [] as never,
      get: {
        responses: {
          200: {
            headers: { ETag: { schema: { type: 'string' }, description: 'Its own.' }, 'X-Count': { $ref: '#/components/headers/X-Count' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } }
          },
          404: { content: { [PROBLEM]: { schema: { $ref: '#/components/schemas/Problem' } } } },
          410: { headers: { 'X-Gone': { $ref: '#/components/headers/X-Gone' }, 'X-Elsewhere': { $ref: '#/components/schemas/Owner' } } },
          '5XX': { content: { [PROBLEM]: { schema: { $ref: '#/components/schemas/Problem' } } } }
        }
      }
    }
  },
  components: {
    schemas: {
      Thing: { type: 'object', properties: { id: { type: 'integer' }, owner: { description: 'Who has it.', allOf: [{ $ref: '#/components/schemas/Owner' }] } }, required: ['id'] },
      Owner: { type: 'object', properties: { name: { type: 'string' } } },
      Problem: { type: 'object', properties: { status: { type: 'integer', minimum: 400 } }, required: ['status'] }
    },
    headers: { 'X-Count': { schema: { type: 'integer' }, description: 'How many.' } }
  }
}

const documented = documentedResponses(document)

t.test('operations are the document\'s methods, not its other path keys', async (t) => {
  t.strictSame(documented.operations().map(({ path, method }) => `${method} ${path}`), ['get /things/{id}'])
})

t.test('a status is found under its code, else its range, else nowhere', async (t) => {
  t.equal(documented.responseKey('/things/{id}', 'GET', 404), '404')
  t.equal(documented.responseKey('/things/{id}', 'get', 503), '5XX')
  t.equal(documented.responseKey('/things/{id}', 'get', 400), undefined)
  t.equal(documented.responseKey('/elsewhere', 'get', 200), undefined)
  t.equal(documented.schema('/things/{id}', 'get', 200, PROBLEM), undefined, 'a media type the response lacks')
})

t.test('the schema comes with every component inlined, at any depth', async (t) => {
  t.strictSame(documented.schema('/things/{id}', 'get', 200, 'application/json'), {
    type: 'object',
    properties: { id: { type: 'integer' }, owner: { description: 'Who has it.', allOf: [{ type: 'object', properties: { name: { type: 'string' } } }] } },
    required: ['id']
  })
})

t.test('validators check against the documented schema and are compiled once per response', async (t) => {
  const validate = documented.validator('/things/{id}', 'get', 502, PROBLEM)
  t.ok(validate?.({ status: 502 }))
  t.notOk(validate?.({ status: 302 }))
  t.equal(documented.validator('/things/{id}', 'get', 500, PROBLEM), validate, 'one validator for the whole range')
  t.not(documented.validator('/things/{id}', 'get', 404, PROBLEM), validate, 'another for another response')
  t.equal(documented.validator('/things/{id}', 'get', 418, PROBLEM), undefined)
})

t.test('references it cannot inline are refused', async (t) => {
  const looping: OpenApiDocument = { openapi: '3.1.0', paths: {}, components: { schemas: { A: { items: { $ref: '#/components/schemas/A' } } } } }
  t.throws(() => resolveRefs({ $ref: '#/components/schemas/A' }, looping), /Recursive \$ref .*A -> A/)
  t.throws(() => resolveRefs({ $ref: '#/components/schemas/Missing' }, document), /Unresolvable/)
  t.throws(() => resolveRefs({ $ref: 'https://example.com/schema.json' }, document), /Unresolvable/)
})

t.test('a response\'s headers come by their names in lower case, references to header components followed', async (t) => {
  t.strictSame(documented.headers('/things/{id}', 'get', 200), {
    etag: { schema: { type: 'string' }, description: 'Its own.' },
    'x-count': { schema: { type: 'integer' }, description: 'How many.' }
  })
  t.strictSame(documented.headers('/things/{id}', 'get', 404), {}, 'a response declaring none')
  t.equal(documented.headers('/things/{id}', 'get', 400), undefined, 'no such response')
  t.throws(() => documented.headers('/things/{id}', 'get', 410), /Unresolvable header \$ref #\/components\/headers\/X-Gone/, 'a missing component')
  const elsewhere = documentedResponses({ ...document, components: { ...document.components, headers: { 'X-Gone': { schema: {} } } } })
  t.throws(() => elsewhere.headers('/things/{id}', 'get', 410), /Unresolvable header \$ref #\/components\/schemas\/Owner/, 'a reference to something other than a header')
})

t.test('mediaTypeOf reads the essence of a Content-Type', async (t) => {
  t.equal(mediaTypeOf('Application/Problem+JSON; charset=utf-8'), PROBLEM)
  t.equal(mediaTypeOf(undefined), '')
})
