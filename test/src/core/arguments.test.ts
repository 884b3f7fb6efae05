import t from 'tap'
import Type from 'typebox'
import { Book } from '../../../routes/books/book.js'
import { splitQuery } from '../../../src/core/arguments.js'
import { compileMount } from '../../../src/core/index.js'
import { signedIn } from '../../../src/permissions.js'
import { arraySource } from '../../../src/sources/index.js'

t.test('a query splits into paging parameters and declared arguments', async (t) => {
  const paging = { page: Type.Integer(), limit: Type.Integer() }
  t.strictSame(splitQuery({ page: 2, colour: 'red', size: 3 }, paging), { paging: { page: 2 }, args: { colour: 'red', size: 3 } })
})

t.test('the query is the declared arguments and the paging parameters, closed', async (t) => {
  const mount = { kind: 'list', name: 'listBooks', url: '/books', summary: 'Books', declaration: Book, source: arraySource([]), permissions: [signedIn] } as const
  const { query } = compileMount({ ...mount, arguments: Type.Object({ colour: Type.String() }) }, { timeZone: 'UTC' })
  t.strictSame(Object.keys(query.properties), ['colour', 'page', 'limit'])
  t.equal((query as { additionalProperties?: unknown }).additionalProperties, false)
  t.strictSame(Object.keys(compileMount(mount, { timeZone: 'UTC' }).query.properties), ['page', 'limit'])
})
