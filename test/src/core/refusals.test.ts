// A mount is refused at registration, naming the route, when it cannot be served safely.
import t from 'tap'
import Type from 'typebox'
import { Book } from '../../../routes/books/book.js'
import { Marking } from '../../../src/declare/index.js'
import { compileMount, MountError, type ListMount } from '../../../src/core/index.js'
import { signedIn } from '../../../src/permissions.js'
import { ProjectionError } from '../../../src/projection/index.js'
import { arraySource } from '../../../src/sources/index.js'

const settings = { timeZone: 'UTC' }
const base: ListMount = {
  kind: 'list',
  name: 'listBooks',
  url: '/books',
  summary: 'List the books',
  declaration: Book,
  source: arraySource([]),
  permissions: [signedIn]
}

t.test('a route without permission checks is refused', async (t) => {
  t.throws(() => compileMount({ ...base, permissions: [] }, settings), new MountError(
    'Route \'listBooks\': declare its permission checks; an open route says so with `unrestricted`.'
  ))
})

t.test('an argument named like a paging parameter is refused', async (t) => {
  t.throws(
    () => compileMount({ ...base, arguments: Type.Object({ page: Type.String() }) }, settings),
    new MountError('Route \'listBooks\': page is a parameter of its paging style; name the argument otherwise.')
  )
})

t.test('several arguments named like paging parameters are refused together', async (t) => {
  t.throws(
    () => compileMount({ ...base, arguments: Type.Object({ page: Type.String(), limit: Type.String() }) }, settings),
    new MountError('Route \'listBooks\': page, limit are parameters of its paging style; name the argument otherwise.')
  )
})

t.test('overrides leaving two labels are refused in the mount\'s name', async (t) => {
  t.throws(() => compileMount({ ...base, name: 'listBooksWithAuthors', overrides: { author_id: Marking.label() } }, settings), ProjectionError)
  t.throws(() => compileMount({ ...base, name: 'listBooksWithAuthors', overrides: { author_id: Marking.label() } }, settings), /listBooksWithAuthors/)
})

t.test('a ceiling that is not a positive integer is refused', async (t) => {
  t.throws(() => compileMount({ ...base, paging: { style: 'page', ceiling: 0 } }, settings), RangeError)
})
