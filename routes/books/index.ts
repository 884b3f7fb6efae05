// The book catalogue: one declaration mounted three ways.
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { Marking } from '../../src/declare/index.js'
import { signedIn } from '../../src/permissions.js'
import { kyselyRecordSource, kyselySource } from '../../src/sources/index.js'
import { Book } from './book.js'

const MAX_PAGE_SIZE = 50

export default async function books (app: FastifyInstance): Promise<void> {
  const catalogue = () => app.db.selectFrom('books').selectAll().orderBy('id')
  const source = kyselySource(app.db, catalogue)

  app.mount({
    kind: 'list',
    name: 'listBooks',
    url: '/books',
    summary: 'List the books',
    description: 'Every book, in id order.',
    tags: ['books'],
    declaration: Book,
    source,
    permissions: [signedIn],
    paging: { style: 'page', maxPageSize: MAX_PAGE_SIZE }
  })

  app.mount({
    kind: 'list',
    name: 'listBooksWithAuthors',
    url: '/books/with-authors',
    summary: 'List the books with their authors',
    description: 'The same books, for callers that go on to look up the author: `author_id` is a handle.',
    tags: ['books'],
    declaration: Book,
    source,
    permissions: [signedIn],
    overrides: { author_id: Marking.handle('The author\'s identifier: pass it to tools that look up authors.') },
    paging: { style: 'page', maxPageSize: MAX_PAGE_SIZE }
  })

  app.mount({
    kind: 'retrieve',
    name: 'getBook',
    url: '/books/:id',
    summary: 'Get one book',
    tags: ['books'],
    declaration: Book,
    params: Type.Object({ id: Type.Integer({ description: 'The book\'s identifier.' }) }),
    source: kyselyRecordSource(({ id }: { id: number }) => catalogue().where('id', '=', id)),
    permissions: [signedIn]
  })
}
