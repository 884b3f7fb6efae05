// The compiler: a checked file to the mounts TypeScript declares, checked against the database and
// the environment; every problem found at once, pointed at, before anything is served.
import t from 'tap'
import { compileDeclarations } from '../../../src/config-file/compiler.js'
import { DeclarationFileError } from '../../../src/config-file/errors.js'
import { loadDeclarationFile } from '../../../src/config-file/loader.js'
import { isWindowSource } from '../../../src/sources/source.js'
import { openStore } from '../../../src/store/index.js'
import { setUpDemo } from '../../../demo/catalogue.js'

const store = await openStore(':memory:', { setUp: setUpDemo })
t.teardown(async () => { await store.close() })
const log = { warn: () => {} }

const BOOK = { fields: { id: { type: 'integer', handle: true }, title: { type: 'string', label: true } } }
const list = (extra: object = {}): object => ({ kind: 'list', name: 'listBooks', url: '/books', summary: 'Books', record: 'Book', source: 'books', permissions: ['signed-in'], ...extra })
const retrieve = (extra: object = {}): object => ({ kind: 'retrieve', name: 'getBook', url: '/books/:id', summary: 'A book', record: 'Book', source: 'books', params: { id: { type: 'integer' } }, permissions: ['unrestricted'], ...extra })

function fileOf (declarations: object): ReturnType<typeof loadDeclarationFile> {
  return loadDeclarationFile('g.json', JSON.stringify(declarations, null, 2))
}

/** Each problem, without its line and column. */
async function refused (declarations: object, env: Record<string, string> = {}): Promise<string[]> {
  try {
    const compiled = await compileDeclarations(fileOf(declarations), { store, env, log })
    await compiled.close()
  } catch (error) {
    if (error instanceof DeclarationFileError) return error.lines.map((line) => line.replace(/^g\.json:\d+:\d+: /, ''))
    throw error
  }
  throw new Error('the file was accepted')
}

t.test('a table\'s mounts: every field read from its column, in the order key\'s order', async (t) => {
  const compiled = await compileDeclarations(fileOf({
    tags: [{ name: 'books', description: 'Books.' }],
    records: { Book: { fields: { ...BOOK.fields, name: { type: 'string' } } } },
    sources: { books: { table: 'books', orderBy: ['-status', 'id'], fields: { name: { column: 'title' } } } },
    mounts: [list({ tags: ['books'], description: 'All.' }), retrieve()]
  }), { store, env: {}, log })
  t.teardown(compiled.close)
  t.strictSame(compiled.tags, [{ name: 'books', description: 'Books.' }])
  const [books, book] = compiled.mounts.map(({ mount }) => mount) as any[]
  t.equal(books.kind, 'list')
  t.strictSame(books.permissions.map((p: { name: string }) => p.name), ['signed-in'])
  t.strictSame(await books.source.slice({}, 0, 2), [{ id: 1, title: 'The Dispossessed', name: 'The Dispossessed' }, { id: 3, title: 'A Wizard of Earthsea', name: 'A Wizard of Earthsea' }], 'published first, then by id')
  t.strictSame(await book.source.one({ id: 2 }), { id: 2, title: 'The Lathe of Heaven', name: 'The Lathe of Heaven' })
  t.strictSame(compiled.mounts.map(({ at }) => at), ['/mounts/0', '/mounts/1'])
})

t.test('a file without tags lists none', async (t) => {
  const compiled = await compileDeclarations(fileOf({ records: { Book: BOOK }, sources: { books: { table: 'books', orderBy: 'id' } }, mounts: [list()] }), { store, env: {}, log })
  t.strictSame(compiled.tags, [])
  await compiled.close()
})

t.test('names that name nothing declared', async (t) => {
  t.strictSame(await refused({
    records: { Book: BOOK },
    sources: { books: { table: 'books', orderBy: 'id' }, api: { upstream: 'nowhere', path: '/x', paging: { style: 'single' } } },
    mounts: [list({ record: 'Bok' }), list({ source: 'boks', url: '/b', name: 'b' }), list({ source: 'api', url: '/c', name: 'c' })]
  }), [
    '/sources/api/upstream: names no declared upstream; declared: none',
    '/mounts/0/record: names no declared record; declared: Book',
    '/mounts/1/source: names no declared source; declared: books, api'
  ])
})

t.test('an entry the schema refused is not compiled, and naming it is no further problem', async (t) => {
  t.strictSame(await refused({
    records: { Book: BOOK, Broken: { fields: { id: { type: 'roman' } } } },
    upstreams: { api: { origin: 'http://127.0.0.1:9', retries: 3 } },
    sources: {
      books: { table: 'books', orderBy: 'id' },
      lost: { table: 'books', orderBy: [] },
      remote: { upstream: 'api', path: '/x', paging: { style: 'single' } }
    },
    mounts: [
      list({ record: 'Broken' }),
      list({ source: 'lost', url: '/l', name: 'l' }),
      list({ source: 'remote', url: '/r', name: 'r' }),
      { kind: 'text', name: 't', url: '/t/:id', summary: 'A text', source: 'lost', text: 'title', params: { id: { type: 'integer' } }, permissions: ['unrestricted'] },
      list({ url: '/x', name: 'x', colour: 'blue' }),
      list({ url: '/x', name: 'y' })
    ]
  }), [
    '/records/Broken/fields/id/type: must be one of "string", "integer", "number", "boolean", "decimal", "date", "date-time", "object", "array"; got "roman"',
    '/upstreams/api/retries: must be an object; got 3',
    '/sources/lost/orderBy: must NOT have fewer than 1 items; got an array',
    '/mounts/4/colour: is not a key of this object; expected one of: kind, name, url, summary, description, tags, record, source, permissions, overrides, schemaName, rowRule, paging, filters, sort'
  ], 'the schema\'s problems alone: a refused mount\'s URL is not counted taken either')
})

t.test('a mount on a missing table, column or order key is refused, naming it', async (t) => {
  t.strictSame(await refused({
    records: { Book: { fields: { ...BOOK.fields, isbn: { type: 'string' }, name: { type: 'string' } } } },
    sources: {
      books: { table: 'books', orderBy: 'rank', fields: { name: 'label', extra: 'x' } },
      nothing: { table: 'chapters', orderBy: 'id' }
    },
    mounts: [list(), list({ source: 'nothing', url: '/n', name: 'n' })]
  }), [
    '/records/Book/fields/isbn: record Book\'s field "isbn" reads column "isbn", which table "books" does not have; its columns: id, title, status, price, published_on, author_id',
    '/sources/books/orderBy: it is ordered by column "rank", which table "books" does not have; its columns: id, title, status, price, published_on, author_id',
    '/sources/books/fields/name: record Book\'s field "name" reads column "label", which table "books" does not have; its columns: id, title, status, price, published_on, author_id',
    '/sources/books/fields/extra: maps "extra", which record Book does not declare',
    '/sources/nothing/table: the database has no table or view "chapters"; it has: authors, book_covers, books, invoices, ledger'
  ])
})

t.test('an empty database has no tables to mount', async (t) => {
  const empty = await openStore(':memory:')
  t.teardown(async () => { await empty.close() })
  const error = await compileDeclarations(fileOf({ records: { Book: BOOK }, sources: { books: { table: 'books', orderBy: 'id' } }, mounts: [list()] }), { store: empty, env: {}, log }).catch((error: Error) => error)
  t.match(error, { lines: [/\/sources\/books\/table: the database has no table or view "books"; it has: none$/] })
})

t.test('path parameters of every JSON type', async (t) => {
  const compiled = await compileDeclarations(fileOf({
    records: { Book: { fields: { ...BOOK.fields, price: { type: 'decimal' } } } },
    sources: { books: { table: 'books', orderBy: 'id' } },
    mounts: [retrieve({ url: '/books/:id/:title/:price', params: { id: { type: 'integer', minimum: 1 }, title: { type: 'string' }, price: { type: 'number' } } })]
  }), { store, env: {}, log })
  t.teardown(compiled.close)
  t.strictSame((compiled.mounts[0].mount as any).params.properties, { id: { type: 'integer', minimum: 1 }, title: { type: 'string' }, price: { type: 'number' } })
})

t.test('a retrieve names the record by fields of the record', async (t) => {
  t.strictSame(await refused({ records: { Book: BOOK }, sources: { books: { table: 'books', orderBy: 'id' } }, mounts: [retrieve({ params: { isbn: { type: 'string' } }, url: '/books/:isbn' })] }), [
    '/mounts/0: path parameter "isbn" names no field of record Book'
  ])
})

t.test('two mounts on one URL, or of one name, are refused', async (t) => {
  t.strictSame(await refused({
    records: { Book: BOOK },
    sources: { books: { table: 'books', orderBy: 'id' } },
    mounts: [retrieve(), retrieve({ url: '/books/:key', params: { id: { type: 'integer' } } })]
  }), [
    '/mounts/1/name: is the name of mount 0 too (/mounts/0): each mount has its own',
    '/mounts/1/url: serves the URL of mount 0 too (/mounts/0): each mount has its own'
  ])
})

t.test('an override names a field of the record', async (t) => {
  t.strictSame(await refused({ records: { Book: BOOK }, sources: { books: { table: 'books', orderBy: 'id' } }, mounts: [list({ overrides: { author: { hidden: true } } })] }), [
    '/mounts/0/overrides/author: names no field of record Book'
  ])
})

t.test('an override is one marking, and a marking set to false is none', async (t) => {
  const compiled = await compileDeclarations(fileOf({ records: { Book: BOOK }, sources: { books: { table: 'books', orderBy: 'id' } }, mounts: [list({ overrides: { id: { handle: false }, title: { content: true } } })] }), { store, env: {}, log })
  t.strictSame((compiled.mounts[0].mount as any).overrides, { title: { kind: 'content' } })
  await compiled.close()
})

const PRODUCT = { fields: { sku: { type: 'string', handle: true }, price: { type: 'integer' } } }
const upstreamFile = (sources: object, mounts: object[], upstreams: object = { api: { origin: 'http://127.0.0.1:9', headers: { authorization: 'Bearer ${TOKEN}' } } }): object => ({ // eslint-disable-line no-template-curly-in-string
  records: { Product: PRODUCT }, upstreams, sources, mounts
})
const products = (extra: object = {}): object => ({ kind: 'list', name: 'listProducts', url: '/products', summary: 'Products', record: 'Product', source: 'products', permissions: ['unrestricted'], paging: { style: 'offset', unit: 'products' }, ...extra })
const product = (extra: object = {}): object => ({ kind: 'retrieve', name: 'getProduct', url: '/products/:sku', summary: 'A product', record: 'Product', source: 'product', params: { sku: { type: 'string' } }, permissions: ['unrestricted'], ...extra })

t.test('upstream endpoints: every paging style, a record by its path parameters, credentials from the environment', async (t) => {
  const sources = {
    products: { upstream: 'api', path: '/products', paging: { style: 'page-link', pageSize: 10 }, fields: { price: 'pricing.cents' } },
    byOffset: { upstream: 'api', path: '/o', paging: { style: 'offset', total: { header: 'X-Total-Count' } } },
    byCursor: { upstream: 'api', path: '/c', paging: { style: 'cursor' }, maxRows: 50 },
    whole: { upstream: 'api', path: '/w', paging: { style: 'single', items: 'data' } },
    product: { upstream: 'api', path: '/products/{sku}', item: 'data' }
  }
  const mounts = [products(), products({ source: 'byOffset', url: '/o', name: 'o' }), products({ source: 'byCursor', url: '/c', name: 'c' }), products({ source: 'whole', url: '/w', name: 'w' }), product()]
  const compiled = await compileDeclarations(fileOf(upstreamFile(sources, mounts)), { store, env: { TOKEN: 'secret' }, log })
  const sourced = compiled.mounts.map(({ mount }) => (mount as any).source)
  t.strictSame(sourced.slice(0, 4).map((source) => [isWindowSource(source), source.totals]), [[true, 'absent'], [true, 'exact'], [true, 'absent'], [true, 'exact']])
  t.type(sourced[4].one, 'function')
  await compiled.close()
})

t.test('an upstream record\'s path is filled with its parameters, encoded', async (t) => {
  const asked: string[] = []
  const { createServer } = await import('node:http')
  const server = createServer((request, response) => {
    asked.push(`${String(request.url)} ${String(request.headers.authorization)}`)
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ data: { sku: 'a b', pricing: { cents: 5 } } }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const compiled = await compileDeclarations(fileOf(upstreamFile(
    { product: { upstream: 'api', path: '/products/{sku}', item: 'data', fields: { price: 'pricing.cents' } } },
    [product()],
    { api: { origin: '${ORIGIN}', headers: { authorization: 'Bearer ${TOKEN}' } } } // eslint-disable-line no-template-curly-in-string
  )), { store, env: { ORIGIN: origin, TOKEN: 'secret' }, log })
  t.teardown(compiled.close)
  t.strictSame(await (compiled.mounts[0].mount as any).source.one({ sku: 'a b' }), { sku: 'a b', price: 5 })
  t.strictSame(asked, ['/products/a%20b Bearer secret'])
})

t.test('what an upstream source gets wrong is refused, pointed at', async (t) => {
  t.strictSame(await refused(upstreamFile({
    products: { upstream: 'api', path: '/shops/{shop}/products', paging: { style: 'single' } },
    product: { upstream: 'api', path: '/products/{id}' },
    unpaged: { upstream: 'api', path: '/all' },
    paged: { upstream: 'api', path: '/p/{sku}', paging: { style: 'single' } },
    mapped: { upstream: 'api', path: '/m', paging: { style: 'single' }, fields: { colour: 'c' } }
  }, [
    products(),
    product(),
    products({ source: 'unpaged', url: '/u', name: 'u' }),
    product({ source: 'paged', url: '/p/:sku', name: 'p' }),
    products({ source: 'mapped', url: '/m', name: 'm' })
  ]), { TOKEN: 'secret' }), [
    '/sources/products/path: names {shop}, which a list cannot fill: it has no path parameters',
    '/sources/product/path: names {id}, which are not path parameters of the mount',
    '/sources/mapped: fields maps colour, which the record does not declare.',
    '/mounts/2: a list reads an upstream source that says its "paging"',
    '/mounts/3: one record reads an upstream source without "paging"'
  ])
})

t.test('an upstream needs its environment variables and a usable origin', async (t) => {
  t.strictSame(await refused(upstreamFile({ products: { upstream: 'api', path: '/p', paging: { style: 'single' } } }, [products()])), [
    '/upstreams/api/headers/authorization: reads the environment variable TOKEN, which is not set'
  ])
  t.strictSame(await refused(upstreamFile({ products: { upstream: 'api', path: '/p', paging: { style: 'single' } } }, [products()], { api: { origin: 'ftp://example.com' } })), [
    '/upstreams/api: Upstream option origin must be an http: or https: URL, like \'https://api.example.com\'.'
  ])
})

t.test('a text held in a column: its lines, of the row its path parameters name', async (t) => {
  const notes = await openStore<any>(':memory:', {
    setUp: async (db) => {
      await db.schema.createTable('notes').addColumn('slug', 'text').addColumn('body', 'text').execute()
      await db.insertInto('notes').values([{ slug: 'two', body: 'first\r\nsecond\n' }, { slug: 'none', body: null }, { slug: 'empty', body: '' }, { slug: 'one', body: 'only' }]).execute()
    }
  })
  t.teardown(async () => { await notes.close() })
  const text = (extra: object): object => ({ kind: 'text', name: 'getNote', url: '/notes/:key', summary: 'A note', source: 'notes', permissions: ['unrestricted'], text: 'body', params: { key: { type: 'string' } }, ...extra })
  const compiled = await compileDeclarations(fileOf({
    records: {},
    sources: { notes: { table: 'notes', orderBy: 'slug', fields: { key: 'slug' } } },
    mounts: [text({ paging: { style: 'lines', ceiling: 5 }, tags: ['notes'] }), text({ name: 'firstNote', url: '/note', params: undefined })]
  }), { store: notes, env: {}, log })
  t.teardown(compiled.close)
  const [note, first] = compiled.mounts.map(({ mount }) => mount) as any[]
  t.match(note, { kind: 'text', paging: { style: 'lines', ceiling: 5 }, tags: ['notes'] })
  t.strictSame(note.params.properties, { key: { type: 'string' } })
  t.strictSame(await note.source.lines({ key: 'two' }), ['first', 'second'])
  t.strictSame(await note.source.lines({ key: 'none' }), [])
  t.strictSame(await note.source.lines({ key: 'empty' }), [])
  t.equal(await note.source.lines({ key: 'missing' }), undefined)
  t.equal(first.params, undefined)
  t.strictSame(await first.source.lines({}), ['first', 'second'], 'without parameters: the first row')
})

t.test('a text reads an existing column of a declared table', async (t) => {
  const text = (extra: object): object => ({ kind: 'text', name: 'getText', url: '/t/:id', summary: 'A text', source: 'books', permissions: ['unrestricted'], text: 'title', params: { id: { type: 'integer' } }, ...extra })
  t.strictSame(await refused({
    records: {},
    upstreams: { api: { origin: 'http://127.0.0.1:9' } },
    sources: { books: { table: 'books', orderBy: 'id' }, chapters: { table: 'chapters', orderBy: 'id' }, api: { upstream: 'api', path: '/t' } },
    mounts: [
      text({ source: 'nowhere' }),
      text({ source: 'api', name: 'a', url: '/a' }),
      text({ source: 'chapters', name: 'c', url: '/c' }),
      text({ text: 'body', params: { isbn: { type: 'string' } }, name: 'b', url: '/b/:isbn' })
    ]
  }), [
    '/sources/books: a text reads column "body", "isbn", which table "books" does not have; its columns: id, title, status, price, published_on, author_id',
    '/sources/chapters/table: the database has no table or view "chapters"; it has: authors, book_covers, books, invoices, ledger',
    '/mounts/0/source: a text reads a table source; it names none declared',
    '/mounts/1/source: a text reads a table source; "api" is an upstream\'s'
  ])
})

t.test('bytes read an existing column of a declared table: a blob as it is, a text as UTF-8, NULL as none', async (t) => {
  const bytes = (extra: object): object => ({ kind: 'bytes', name: 'getCover', url: '/c/:id', summary: 'A cover', source: 'covers', permissions: ['unrestricted'], bytes: 'image', mediaType: 'image/png', params: { id: { type: 'integer' } }, ...extra })
  t.strictSame(await refused({
    records: {},
    upstreams: { api: { origin: 'http://127.0.0.1:9' } },
    sources: { covers: { table: 'book_covers', orderBy: 'book_id', fields: { id: 'book_id' } }, api: { upstream: 'api', path: '/t' } },
    mounts: [
      bytes({ source: 'nowhere' }),
      bytes({ source: 'api', name: 'a', url: '/a' }),
      bytes({ bytes: 'png', name: 'b', url: '/b/:id' })
    ]
  }), [
    '/sources/covers: bytes are read from column "png", which table "book_covers" does not have; its columns: book_id, image',
    '/mounts/0/source: bytes are read from a table source; it names none declared',
    '/mounts/1/source: bytes are read from a table source; "api" is an upstream\'s'
  ])
  const compiled = await compileDeclarations(fileOf({
    records: {},
    sources: { covers: { table: 'book_covers', orderBy: 'book_id', fields: { id: 'book_id' } }, books: { table: 'books', orderBy: 'id' } },
    mounts: [
      bytes({ paging: { style: 'bytes', ceiling: 64, defaultBytes: 8 } }),
      bytes({ name: 'getTitle', url: '/t/:id', source: 'books', bytes: 'title', mediaType: 'text/plain; charset=utf-8' }),
      bytes({ name: 'getDate', url: '/d/:id', source: 'books', bytes: 'published_on', mediaType: 'text/plain' })
    ]
  }), { store, env: {}, log })
  t.teardown(compiled.close)
  const [cover, title, date] = compiled.mounts.map(({ mount }) => mount) as any[]
  t.match(cover, { kind: 'bytes', mediaType: 'image/png', paging: { style: 'bytes', ceiling: 64, defaultBytes: 8 } })
  const image = await cover.source.open({ id: 1 })
  t.strictSame(Buffer.from(await image.read(0, 8)), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'a PNG, from its blob')
  t.equal(await cover.source.open({ id: 99 }), undefined, 'no row: no content')
  t.notOk('paging' in title)
  const read = await title.source.open({ id: 1 })
  t.equal(Buffer.from(await read.read(0, read.length)).toString('utf8'), 'The Dispossessed', 'a text column, as its UTF-8 bytes')
  t.equal(await date.source.open({ id: 2 }), undefined, 'NULL: no content')
})

t.test('scopes, filters on a renamed column, and seeking by the order key', async (t) => {
  const compiled = await compileDeclarations(fileOf({
    records: { Book: { fields: { ...BOOK.fields, state: { type: 'string' } } } },
    sources: { books: { table: 'books', orderBy: 'id', seek: true, fields: { state: 'status' } } },
    mounts: [list({ permissions: ['scope:books:read'], filters: { state: 'equals' } })]
  }), { store, env: {}, log })
  t.teardown(compiled.close)
  const [books] = compiled.mounts.map(({ mount }) => mount) as any[]
  t.strictSame(books.permissions.map((p: { name: string }) => p.name), ['scope books:read'])
  t.strictSame(books.filters, { state: 'equals' })
  const drafts = await books.source.slice({}, 0, 5, [{ field: 'state', op: 'equals', value: 'draft' }])
  t.strictSame(drafts, [{ id: 2, title: 'The Lathe of Heaven', state: 'draft' }], 'the filter compares the column the field is read from')
})

t.test('seeking needs one ascending order key', async (t) => {
  for (const orderBy of ['-id', ['status', 'id']]) {
    t.strictSame(await refused({ records: { Book: BOOK }, sources: { books: { table: 'books', orderBy, seek: true } }, mounts: [list()] }), [
      '/sources/books/seek: seeks by one ascending order key; order it by one column, ascending, or leave seek out'
    ], JSON.stringify(orderBy))
  }
})

const action = (extra: object = {}): object => ({
  kind: 'action',
  name: 'retitleBook',
  url: '/books/:id/title',
  summary: 'Retitle a book',
  permissions: ['signed-in'],
  params: { id: { type: 'integer' } },
  body: { title: { type: 'string', minLength: 1 }, note: { type: 'object', optional: true, fields: { by: { type: 'string', hidden: true } } } },
  record: 'Book',
  source: 'books',
  statements: ['update books set title = :title where id = :id'],
  ...extra
})

t.test('an action: its body closed at every depth, its statements run with their parameters bound, the row read before and after', async (t) => {
  const compiled = await compileDeclarations(fileOf({ records: { Book: BOOK }, sources: { books: { table: 'books', orderBy: 'id' } }, mounts: [action()] }), { store, env: {}, log })
  t.teardown(compiled.close)
  const mount = compiled.mounts[0].mount as any
  t.equal(mount.kind, 'action')
  t.equal(mount.body.additionalProperties, false)
  t.equal(mount.body.properties.note.additionalProperties, false, 'a nested object is closed too')
  t.equal(mount.target.readsSubject, true)
  const checks: unknown[] = []
  const result = await mount.target.run({ params: { id: 2 }, body: { title: 'It\'s :title -- not a parameter' } }, { check: (row: unknown) => { checks.push(row) }, settle: async () => {} }, {})
  t.strictSame(checks, [{ id: 2, title: 'The Lathe of Heaven' }], 'checked on the row as it was')
  t.strictSame(result, { id: 2, title: 'It\'s :title -- not a parameter' }, 'answered as it is: the value bound, never pasted in')
})

t.test('what an action of a file cannot say: a parameter it does not take, statements for an upstream or none for a table, an affordance an upstream decides, a field named like a parameter', async (t) => {
  t.strictSame(await refused({
    records: { Book: BOOK },
    sources: {
      books: { table: 'books', orderBy: 'id' },
      api: { upstream: 'catalogue', path: '/x/{id}' },
      lost: { upstream: 'nowhere', path: '/y' },
      pages: { upstream: 'catalogue', path: '/p', paging: { style: 'single' } },
      misnamed: { upstream: 'catalogue', path: '/m/{sku}' }
    },
    upstreams: { catalogue: { origin: 'http://127.0.0.1:9' } },
    mounts: [
      action({ statements: ['update books set title = :titel where id = :id and status = \'a:b\' -- :comment', 'select 1::int'] }),
      action({ name: 'b', url: '/b/:id', source: 'api' }),
      action({ name: 'c', url: '/c/:id', body: { now: { type: 'string' }, id: { type: 'integer' } }, statements: ['select :now'] }),
      action({ name: 'd', url: '/d/:id', source: 'api', statements: undefined, affords: 'retitle' }),
      action({ name: 'e', url: '/e/:id', statements: undefined }),
      action({ name: 'f', url: '/f/:id', source: 'lost', statements: undefined }),
      action({ name: 'g', url: '/g/:id', source: 'pages', statements: undefined }),
      action({ name: 'h', url: '/h/:id', source: 'misnamed', statements: undefined })
    ]
  }), [
    '/sources/lost/upstream: names no declared upstream; declared: catalogue',
    '/sources/misnamed/path: names {sku}, which are not path parameters of the action at /mounts/7',
    '/mounts/0/statements/0: names :titel, which is no path parameter, body field or :now; it takes :id, :title, :note, :now',
    '/mounts/1/statements: "api" is an upstream\'s source: the upstream acts, and no statement runs',
    '/mounts/2/body/now: is the statements\' own parameter :now; name the field otherwise',
    '/mounts/2/body/id: is a path parameter too; name the field otherwise',
    '/mounts/3/affords: an action sent to an upstream reads no record to check an affordance on: the upstream decides',
    '/mounts/4: an action on a table source runs statements; give it "statements"',
    '/mounts/6/source: "pages" is a list\'s source (it says its "paging"): an action is sent to one path'
  ])
})

t.test('an action sent to an upstream: its source\'s path filled with the path parameters, the answer read as the record', async (t) => {
  const compiled = await compileDeclarations(fileOf({
    records: { Book: BOOK },
    sources: { api: { upstream: 'catalogue', path: '/books/{id}/title', item: 'book', fields: { title: 'name' } } },
    upstreams: { catalogue: { origin: 'http://127.0.0.1:9' } },
    mounts: [action({ source: 'api', method: 'PUT', statements: undefined, body: { now: { type: 'string' } } })]
  }), { store, env: {}, log })
  t.teardown(compiled.close)
  const mount = compiled.mounts[0].mount as any
  t.match(mount, { kind: 'action', method: 'PUT', target: { readsSubject: false, transactional: false } })
  t.ok(mount.target.problems.includes('AG_UPSTREAM_UNREACHABLE'))
  t.ok(Object.hasOwn(mount.body.properties, 'now'), 'a field named now: no statement takes it')
})

t.test('an action\'s options, as the file gives them; one whose statements delete its row answers the row as it was', async (t) => {
  const compiled = await compileDeclarations(fileOf({
    records: { Book: BOOK },
    sources: { books: { table: 'books', orderBy: 'id' } },
    mounts: [action({
      method: 'DELETE',
      url: '/books/:id',
      maxBodyBytes: 64,
      creates: false,
      destructive: true,
      idempotent: true,
      body: { tags: { type: 'array', items: { type: 'object', fields: { name: { type: 'string' } } }, optional: true } },
      statements: ['delete from books where id = :id']
    })]
  }), { store, env: {}, log })
  t.teardown(compiled.close)
  const mount = compiled.mounts[0].mount as any
  t.match(mount, { method: 'DELETE', maxBodyBytes: 64, creates: false, destructive: true, idempotent: true })
  t.equal(mount.body.properties.tags.items.additionalProperties, false, 'the objects of an array closed too')
  const settled: unknown[] = []
  const result = await mount.target.run({ params: { id: 3 }, body: {} }, { check: () => {}, settle: async (row: unknown) => { settled.push(row) } }, {})
  t.strictSame(result, { id: 3, title: 'A Wizard of Earthsea' })
  t.strictSame(settled, [result])
  t.equal(await mount.target.run({ params: { id: 3 }, body: {} }, { check: (row: unknown) => { if (row === undefined) throw new Error('gone') }, settle: async () => {} }, {}).catch((error: Error) => error.message), 'gone', 'deleted, it is no record')
})

t.test('an action naming no declared record, or a column its table lacks, is refused', async (t) => {
  t.strictSame(await refused({
    records: { Book: BOOK, Other: { fields: { id: { type: 'integer' }, colour: { type: 'string' } } } },
    sources: { books: { table: 'books', orderBy: 'id' } },
    mounts: [action({ record: 'Bok' }), action({ name: 'other', url: '/o/:id', record: 'Other' })]
  }), [
    '/records/Other/fields/colour: record Other\'s field "colour" reads column "colour", which table "books" does not have; its columns: id, title, status, price, published_on, author_id',
    '/mounts/0/record: names no declared record; declared: Book, Other'
  ])
})
