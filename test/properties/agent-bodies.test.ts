// The checks the route properties run on agent bodies, each shown to find what it looks for: a
// check that cannot fail would let a leak through unseen.
import type { RouteOptions } from 'fastify'
import t from 'tap'
import Type from 'typebox'
import { Invoice } from '../../routes/invoices/invoice.js'
import { hidden, Marking } from '../../src/declare/index.js'
import { compareWithPlain, hiddenFieldsOf, hiddenKeysIn, undeclaredKeys } from './agent-bodies.js'

const JSON_TYPE = 'application/json'

/** A registered route as Fastify holds it, with `schema` as its 200 plain body. */
function routeServing (schema: object): RouteOptions {
  return { method: 'GET', url: '/things', handler: () => null, schema: { response: { 200: { content: { [JSON_TYPE]: { schema } } } } } }
}

t.test('hiddenFieldsOf reads the hidden fields of a route\'s plain record, at any depth', async (t) => {
  const list = routeServing({ type: 'array', items: Invoice.schema })
  t.strictSame(hiddenFieldsOf(list, JSON_TYPE).paths, ['etag', 'lines[].internal_cost', 'customer.secret'])
  t.strictSame([...hiddenFieldsOf(list, JSON_TYPE).names], ['etag', 'internal_cost', 'secret'])
  t.strictSame(hiddenFieldsOf(routeServing(Invoice.schema), JSON_TYPE).paths, ['etag', 'lines[].internal_cost', 'customer.secret'], 'a single record too')
})

t.test('hiddenFieldsOf: a name hidden in one place and shown in another is a path, not a name', async (t) => {
  const schema = Type.Object({ secret: Type.String(), owner: Type.Object({ secret: hidden(Type.String()) }) })
  const fields = hiddenFieldsOf(routeServing(schema), JSON_TYPE)
  t.strictSame(fields.paths, ['owner.secret'])
  t.strictSame([...fields.names], [])
})

t.test('hiddenFieldsOf applies the mount\'s overrides', async (t) => {
  const shown = hiddenFieldsOf(routeServing(Invoice.schema), JSON_TYPE, { etag: Marking.content() })
  t.strictSame(shown.paths, ['lines[].internal_cost', 'customer.secret'])
})

t.test('hiddenFieldsOf: a route without a JSON record hides nothing', async (t) => {
  t.strictSame(hiddenFieldsOf(routeServing({ type: 'string' }), JSON_TYPE).paths, [])
  t.strictSame(hiddenFieldsOf(routeServing(Invoice.schema), 'text/plain').paths, [], 'no body for that media type')
})

t.test('hiddenKeysIn finds a hidden name at any depth, in lists too', async (t) => {
  const body = { items: [{ id: 1, lines: [{ sku: 'S1' }, { sku: 'S2', internal_cost: '1' }] }], etag: 'W/1' }
  t.strictSame(hiddenKeysIn(body, new Set(['internal_cost', 'etag'])), ['$.items[0].lines[1].internal_cost', '$.etag'])
  t.strictSame(hiddenKeysIn(body, new Set(['secret'])), [])
})

t.test('undeclaredKeys finds a key an open schema does not name, at any depth', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, customer: { type: 'object', properties: { name: {} } } } } }
    }
  }
  t.strictSame(undeclaredKeys(schema, { items: [{ id: 1, customer: { name: 'Ada' } }] }), [])
  t.strictSame(undeclaredKeys(schema, { items: [{ id: 1, customer: { name: 'Ada', secret: 'x' } }], extra: 1 }), ['$.items[0].customer.secret', '$.extra'])
  t.strictSame(undeclaredKeys({ type: 'array' }, [{ id: 1 }]), ['$[0].id'], 'a list without an item schema declares no key')
})

t.test('undeclaredKeys reads allOf, anyOf and oneOf branches and additionalProperties schemas', async (t) => {
  const availability = {
    anyOf: [
      { type: 'object', properties: { available: { const: true } } },
      { type: 'object', properties: { available: { const: false }, code: {}, reason: {} } }
    ]
  }
  const schema = { allOf: [{ type: 'object', properties: { refund: availability } }] }
  t.strictSame(undeclaredKeys(schema, { refund: { available: false, code: 'x', reason: 'y' } }), [])
  t.strictSame(undeclaredKeys(schema, { refund: { available: true, why: 'z' } }), ['$.refund.why'])
  const errors = { type: 'object', properties: { errors: { type: 'object', additionalProperties: { type: 'array' } } } }
  t.strictSame(undeclaredKeys(errors, { errors: { colour: ['Unknown argument.'] } }), [])
  t.strictSame(undeclaredKeys({ type: 'object', additionalProperties: true }, { any: 1 }), ['$.any'], 'an open object declares nothing')
})

t.test('compareWithPlain finds keys the plain row lacks and hidden values served', async (t) => {
  const plain = { id: 7, etag: 'W/1', lines: [{ sku: 'S1', internal_cost: '9.99' }], customer: { name: 'Ada', secret: 'x' } }
  const hidden = ['etag', 'lines[].internal_cost', 'customer.secret']
  const exercised = { count: 0 }
  t.strictSame(compareWithPlain({ id: 7, lines: [{ sku: 'S1' }], customer: { name: 'Ada' } }, plain, hidden, exercised), [])
  t.equal(exercised.count, 3, 'each hidden value of the plain row was looked for')
  t.strictSame(compareWithPlain({ id: 7, lines: [{ sku: 'S1', internal_cost: '9.99' }], customer: { name: 'Ada', nickname: 'A' } }, plain, hidden, exercised), [
    '$.customer.nickname (not in the plain row)',
    'hidden lines[].internal_cost served'
  ])
  const counted = exercised.count
  t.strictSame(compareWithPlain({ id: 7, note: null }, { id: 7 }, ['note'], exercised), ['$.note (not in the plain row)'])
  t.equal(exercised.count, counted, 'a hidden field the plain row lacks is not counted')
})
