import t from 'tap'
import Type from 'typebox'
import { querystringSchema, splitQuery } from '../../../src/mount/arguments.js'

t.test('a query splits into paging parameters and declared arguments', async (t) => {
  const paging = { page: Type.Integer(), limit: Type.Integer() }
  t.strictSame(splitQuery({ page: 2, colour: 'red', size: 3 }, paging), { paging: { page: 2 }, args: { colour: 'red', size: 3 } })
})

t.test('the querystring is the declared arguments and the paging parameters, closed', async (t) => {
  const schema = querystringSchema(Type.Object({ colour: Type.String() }), { page: Type.Integer() })
  t.strictSame(Object.keys(schema.properties), ['colour', 'page'])
  t.equal((schema as { additionalProperties?: unknown }).additionalProperties, false)
  t.strictSame(Object.keys(querystringSchema(undefined, { page: Type.Integer() }).properties), ['page'])
})
