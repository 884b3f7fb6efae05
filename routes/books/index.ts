// The book catalogue: one declaration mounted three ways, each book's cover and each book's text.
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { kyselyRecordSource, kyselySource, Marking, recordBytesSource, type RecordSource, recordTextSource, signedIn, unrestricted } from '../../src/index.js'
import type { Database } from '../../demo/database.js'
import { Book } from './book.js'
import { bookText } from './text.js'

const MAX_PAGE_SIZE = 50
const MAX_TEXT_LINES = 200
/** A cover is a few KB: an agent reads it in a few windows of at most 4096 bytes (1024 by default). */
const MAX_COVER_BYTES = 4096
const COVER_BYTES = 1024

const BookParams = Type.Object({ id: Type.Integer({ description: 'The book\'s identifier.' }) })

export default async function books (app: FastifyInstance): Promise<void> {
  const catalogue = () => app.store.db.selectFrom('books').selectAll().orderBy('id')
  // Ordered by the primary key, so a deep page seeks from an anchor instead of stepping over the rows before it.
  const source = kyselySource(app.store, catalogue, { keyset: { column: 'id' } })
  const book = kyselyRecordSource(({ id }: { id: number }) => catalogue().where('id', '=', id))

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
    paging: { style: 'page', ceiling: MAX_PAGE_SIZE }
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
    // Its agent item differs from /books' (author_id is shown): published under its own names.
    schemaName: 'BookWithAuthors',
    paging: { style: 'page', ceiling: MAX_PAGE_SIZE }
  })

  app.mount({
    kind: 'retrieve',
    name: 'getBook',
    url: '/books/:id',
    summary: 'Get one book',
    description: 'The book its id names: every field for a plain client, the projected record for an agent.',
    tags: ['books'],
    declaration: Book,
    params: BookParams,
    source: book,
    permissions: [signedIn]
  })

  app.mount({
    kind: 'bytes',
    name: 'getBookCover',
    url: '/books/:id/cover',
    summary: 'Get a book\'s cover',
    description: `The cover, a PNG image, open to anyone: whole or one range (Range) for a plain client or a browser; for an agent a window of its bytes, as base64 (at most ${MAX_COVER_BYTES} bytes).`,
    tags: ['books'],
    params: BookParams,
    source: recordBytesSource(
      kyselyRecordSource(({ id }: { id: number }) => app.store.db.selectFrom('book_covers').select('image').where('book_id', '=', id)),
      (row) => row.image
    ),
    mediaType: 'image/png',
    // Open to anyone: a browser opening the image sends no key.
    permissions: [unrestricted],
    paging: { style: 'bytes', ceiling: MAX_COVER_BYTES, defaultBytes: COVER_BYTES }
  })

  mountBookText(app)
}

/**
 * Each book's text, written by a function from the book (routes/books/text.ts): what a declaration
 * file cannot declare, so its demo mounts this one route beside the file's.
 */
export function mountBookText (app: FastifyInstance): void {
  app.mount({
    kind: 'text',
    name: 'getBookText',
    url: '/books/:id/text',
    summary: 'Read a book\'s text',
    description: `The whole text as text/plain, or for an agent a window of lines (at most ${MAX_TEXT_LINES}).`,
    tags: ['books'],
    params: BookParams,
    source: recordTextSource(bookById(app), bookText),
    permissions: [signedIn],
    paging: { style: 'lines', ceiling: MAX_TEXT_LINES }
  })
}

function bookById (app: FastifyInstance): RecordSource<{ id: number }, Database['books']> {
  return kyselyRecordSource(({ id }: { id: number }) => app.store.db.selectFrom('books').selectAll().orderBy('id').where('id', '=', id))
}
