// withHeaderComponents (src/openapi/headers.ts): a header declared as the gateway knows it becomes a
// reference to its one component; anything else is left as it was declared.
import t from 'tap'
import { withHeaderComponents } from '../../src/openapi/headers.js'

const KNOWN = {
  ETag: { type: 'string', description: 'The validator.' },
  'Retry-After': { type: 'integer', minimum: 0, description: 'Seconds to wait.' },
  Unused: { type: 'string', description: 'Sent by no response here.' }
}

const ETAG = { schema: { type: 'string' }, description: 'The validator.' }
const RETRY_AFTER = { description: 'Seconds to wait.', schema: { minimum: 0, type: 'integer' } }

t.test('known headers become references to components, published once each, in name order; the rest stay', async (t) => {
  const document = {
    openapi: '3.1.0',
    paths: {
      '/things': {
        parameters: [{ in: 'query', name: 'q' }],
        get: {
          responses: {
            200: { description: 'OK', headers: { 'Retry-After': RETRY_AFTER, ETag: ETAG, 'X-Own': { schema: { type: 'string' } } } },
            304: { description: 'Not modified', headers: { ETag: { schema: { type: 'string' }, description: 'Another meaning.' } } },
            404: { description: 'None' }
          }
        }
      }
    },
    components: { schemas: { Thing: { type: 'object' } } }
  }
  const published = withHeaderComponents(document, KNOWN)
  t.strictSame(published.paths['/things'].parameters, [{ in: 'query', name: 'q' }], 'what is no operation is kept')
  t.strictSame(published.paths['/things'].get.responses, {
    200: { description: 'OK', headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ETag: { $ref: '#/components/headers/ETag' }, 'X-Own': { schema: { type: 'string' } } } },
    304: { description: 'Not modified', headers: { ETag: { schema: { type: 'string' }, description: 'Another meaning.' } } },
    404: { description: 'None' }
  })
  t.strictSame(published.components, { schemas: { Thing: { type: 'object' } }, headers: { ETag: ETAG, 'Retry-After': RETRY_AFTER } }, 'only the headers referenced')
  t.strictSame(Object.keys(published.components.headers ?? {}), ['ETag', 'Retry-After'], 'in name order')
  t.strictSame(document.paths['/things'].get.responses[200].headers.ETag, ETAG, 'the document given is left as it was')
})

t.test('a document that sends none of the known headers is returned as it is', async (t) => {
  const document = { paths: { '/things': { get: { responses: { 200: { description: 'OK' } } } } } }
  t.equal(withHeaderComponents(document, KNOWN), document)
})
