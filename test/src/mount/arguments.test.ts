import t from 'tap'
import Type from 'typebox'
import { splitQuery } from '../../../src/mount/arguments.js'

t.test('a query splits into paging parameters and declared arguments', async (t) => {
  const paging = { page: Type.Integer(), limit: Type.Integer() }
  t.strictSame(splitQuery({ page: 2, colour: 'red', size: 3 }, paging), { paging: { page: 2 }, args: { colour: 'red', size: 3 } })
})
