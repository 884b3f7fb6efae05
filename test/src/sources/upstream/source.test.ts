// The upstream sources and their paging adapters on a scripted client: every way an upstream's
// pages can be wrong, the walk's bound, and where a row that does not match is refused.
import t, { type Test } from 'tap'
import Type from 'typebox'
import { declareRecord, handle, label } from '../../../../src/declare/index.js'
import { problemOf } from '../../../../src/core/problem.js'
import { validators } from '../../../../src/core/validators.js'
import { compileMount, MountError, unrestricted } from '../../../../src/index.js'
import {
  cursorPaging, offsetPaging, pageLinkPaging, singlePaging, upstreamList, upstreamRecord,
  type UpstreamClient, type UpstreamPaging, type UpstreamResponse
} from '../../../../src/sources/upstream/index.js'
import { rowReader } from '../../../../src/sources/upstream/rows.js'

const ORIGIN = 'http://upstream.test'
/** The upstream as a row reader knows it: problems call it by its name, the log by its origin. */
const UPSTREAM = { origin: ORIGIN, name: 'catalogue' }
/** What compiles the row checks here, as an app's do. */
const { rows: compile } = validators()
/** Where the items a row reader reads came from, told nothing of what is wrong with them. */
const UNTOLD = { url: new URL('/items?page=2', ORIGIN), log: undefined }
const Item = declareRecord('Item', Type.Object({
  id: handle(Type.Integer({ minimum: 1 })),
  name: label(Type.String()),
  tags: Type.Optional(Type.Array(Type.String()))
}), { open: { description: 'Open it.', when: () => true } })

type Answer = Omit<UpstreamResponse, 'url' | 'status'> & { status?: number }

/** A client answering each URL as `answer` says, and remembering what it was asked. */
function scripted (answer: (url: URL) => Answer | undefined): UpstreamClient & { asked: string[], signals: Array<AbortSignal | undefined> } {
  const asked: string[] = []
  const signals: Array<AbortSignal | undefined> = []
  return {
    origin: ORIGIN,
    name: undefined,
    asked,
    signals,
    // A read never sends: an action's call would be a defect of the source.
    send: async () => { throw new Error('a read sent a call') },
    get: async (target, options = {}) => {
      const url = new URL(target, ORIGIN)
      asked.push(url.pathname + url.search)
      signals.push(options.signal)
      const answered = answer(url)
      if (answered === undefined) return undefined
      return { url, status: 200, ...answered }
    },
    close: async () => {}
  }
}

const items = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: from + i, name: `Item ${from + i}`, extra: 'not declared' }))

async function all<T> (batches: AsyncIterable<readonly T[]>): Promise<T[]> {
  const seen: T[] = []
  for await (const batch of batches) seen.push(...batch)
  return seen
}

/** A source's batches, as the rows one after another. */
async function * rowsOf<T> (batches: AsyncIterable<readonly T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield * batch
}

function problemIn (t: Test, error: unknown, status: number, type: string, detail?: RegExp): void {
  const { body } = problemOf(error)
  t.equal(body.status, status)
  t.equal(body.type, `urn:audience-gateway:problem:${type}`)
  if (detail !== undefined) t.match(body.detail, detail)
}

t.test('rows: declared fields only, from their paths; the computed affordances are not read', async (t) => {
  const read = rowReader(Item.schema, { name: 'label.text' }, UPSTREAM, compile)(UNTOLD)
  t.strictSame(read({ id: 1, label: { text: 'One' }, secret: 's', affordances: 'x' }), { id: 1, name: 'One' })
  t.throws(() => rowReader(Item.schema, { nope: 'x' }, UPSTREAM, compile), /fields maps nope, which the record does not declare/)
  const optional = rowReader(Type.Object({ note: Type.Optional(Type.String()) }), {}, UPSTREAM, compile)(UNTOLD)
  t.strictSame(optional({}), {}, 'a record with nothing required')
  const inherited = rowReader(Type.Object({ constructor: Type.String(), toString: Type.String() }), { toString: 'text' }, UPSTREAM, compile)(UNTOLD)
  t.strictSame(inherited({ constructor: 'c', text: 't' }), { constructor: 'c', toString: 't' }, 'a field named like an inherited property: by its own name, or its path')
})

t.test('a list read a window at a time is paged by offset: another style is refused at registration', async (t) => {
  const source = upstreamList({ client: scripted(() => undefined), declaration: Item, path: '/list', paging: singlePaging() })
  const mount = { kind: 'list', name: 'listItems', url: '/items', summary: 'Items', declaration: Item, source, permissions: [unrestricted] } as const
  t.throws(() => compileMount({ ...mount, paging: { style: 'page' } }, { timeZone: 'UTC' }), new MountError('Route \'listItems\': its source is read a window at a time, without counting first; page it with the offset style.'))
  t.ok(compileMount({ ...mount, paging: { style: 'offset', unit: 'items' } }, { timeZone: 'UTC' }).problems.includes('AG_UPSTREAM_TIMEOUT'), 'and publishes the upstream\'s problems')
})

t.test('rows: a mismatch is a 502 naming the field; the log gets the field, where it is in the item and the path asked, never the value', async (t) => {
  const told: object[] = []
  const log = { warn: (details: object, message: string) => { told.push({ ...details, message }) } }
  const read = rowReader(Item.schema, { name: 'label.text', tags: 'meta.tags' }, UPSTREAM, compile)({ url: new URL('/items?page=2', ORIGIN), log })
  const at = { origin: ORIGIN, path: '/items?page=2' }
  const mismatch = 'upstream row does not match the declared record'
  const cases: Array<[unknown, RegExp, object]> = [
    [{ id: 'one', label: { text: 'x' } }, /: id must be integer\./, { field: 'id', itemPath: 'id', keyword: 'type' }],
    [{ label: { text: 'x' } }, /: id must have required property 'id'\./, { field: 'id', itemPath: 'id', keyword: 'required' }],
    [{ id: 1, label: { text: 'x' }, meta: { tags: [1] } }, /: tags\.0 must be string\./, { field: 'tags.0', itemPath: 'meta.tags.0', keyword: 'type' }],
    ['not an object', /a row that is not an object\./, { type: 'string', message: 'upstream row is not an object' }],
    [[{ id: 1 }], /a row that is not an object\./, { type: 'array', message: 'upstream row is not an object' }],
    [{ id: 1, label: { text: { deep: true } } }, /: name must be string\./, { field: 'name', itemPath: 'label.text', keyword: 'type' }]
  ]
  for (const [item, detail, logged] of cases) {
    told.length = 0
    try {
      read(item)
      t.fail('accepted')
    } catch (error) {
      problemIn(t, error, 502, 'upstream-failed', detail)
      t.notMatch(problemOf(error).body.detail, /one|deep/)
      t.match(problemOf(error).body.detail, /^The upstream "catalogue" answered a row/, 'the upstream by its name')
      t.notMatch(problemOf(error).body.detail, ORIGIN, 'never by its origin')
    }
    t.equal(told.length, 1, 'told once')
    t.match(told[0], { ...at, message: mismatch, ...logged })
    t.notMatch(JSON.stringify(told[0]), /"one"|deep|\[1\]/, 'never the value')
  }
  // A check of the row itself names no field: nor does the log.
  const whole = rowReader(Type.Object({ note: Type.Optional(Type.String()) }, { minProperties: 1 }), {}, UPSTREAM, compile)({ url: new URL('/note', ORIGIN), log })
  told.length = 0
  t.throws(() => whole({}), /the declared record: {2}must NOT have fewer than 1 properties\./)
  t.match(told, [{ origin: ORIGIN, path: '/note', field: '', itemPath: '', keyword: 'minProperties' }])
})

t.test('page + Link: pages addressed by number, next from the Link header (relative too), no total', async (t) => {
  t.equal(pageLinkPaging().pageSize, 30, 'GitHub\'s default page size')
  const paging = pageLinkPaging({ pageSize: 2, firstPage: 0, page: 'p', perPage: 'n' })
  const client = scripted((url) => {
    const page = Number(url.searchParams.get('p'))
    const link = page < 2 ? { link: `</list?p=${page + 1}&n=2>; rel="next", </list?p=0&n=2>; rel="first"` } : {}
    return { headers: link, body: page < 2 ? items(page * 2 + 1, 2) : items(5, 1) }
  })
  const source = upstreamList({ client, declaration: Item, path: '/list', paging })
  t.equal(source.totals, 'absent')
  t.strictSame(await source.window(undefined, 3, 2), { rows: [{ id: 4, name: 'Item 4' }, { id: 5, name: 'Item 5' }], more: false })
  t.strictSame(client.asked, ['/list?p=1&n=2', '/list?p=2&n=2'], 'from the page holding offset 3')
  t.strictSame((await all(source.stream(undefined))).map((row: any) => row.id), [1, 2, 3, 4, 5])
  t.throws(() => pageLinkPaging({ firstPage: -1 }), /firstPage must be 0 or more/)
})

t.test('page + Link: a page not of the size asked for cannot be addressed: 502, logged', async (t) => {
  const told: string[] = []
  const client = scripted(() => ({ headers: { link: ['</list?page=2>; rel="next"'] as unknown as string }, body: items(1, 3) }))
  const source = upstreamList({ client, declaration: Item, path: '/list', paging: pageLinkPaging({ pageSize: 2 }), log: { warn: (_details, message) => { told.push(message) } } })
  await t.rejects(source.window(undefined, 0, 2)).then(() => {})
  try {
    await source.window(undefined, 0, 2)
  } catch (error) {
    problemIn(t, error, 502, 'upstream-failed', /not the shape its paging promises/)
  }
  t.match(told, ['upstream page is not the shape its paging style promises'])
})

t.test('offset + total: any offset at once, the total exact, next while the total says more', async (t) => {
  const client = scripted((url) => {
    const offset = Number(url.searchParams.get('offset'))
    return { headers: { 'x-total-count': '5' }, body: items(offset + 1, Math.max(0, Math.min(2, 5 - offset))) }
  })
  const source = upstreamList({ client, declaration: Item, path: '/list?sort=id', paging: offsetPaging({ pageSize: 2, total: { header: 'X-Total-Count' } }) })
  t.equal(source.totals, 'exact')
  const read = await source.window(undefined, 1, 3)
  t.strictSame(read.rows.map((row: any) => row.id), [2, 3, 4])
  t.equal(read.total, 5)
  t.equal(read.more, true)
  t.strictSame(client.asked, ['/list?sort=id&offset=1&limit=2', '/list?sort=id&offset=3&limit=2'], 'the mount\'s own query kept')
  t.strictSame((await all(source.stream(undefined))).map((row: any) => row.id), [1, 2, 3, 4, 5])
})

t.test('offset + total: a total that is not a count is the upstream\'s fault', async (t) => {
  for (const [total, where] of [['many', { header: 'X-Total-Count' }], [-1, { field: 'total' }], [undefined, { field: 'total' }]] as const) {
    const client = scripted(() => ({ headers: typeof total === 'string' ? { 'x-total-count': total } : {}, body: { total, results: [] } }))
    const source = upstreamList({ client, declaration: Item, path: '/list', paging: offsetPaging({ total: where, items: 'results' }) })
    await source.window(undefined, 0, 1).then(() => t.fail('accepted'), (error) => { problemIn(t, error, 502, 'upstream-failed') })
  }
})

t.test('cursor: walked from the first page, cursors kept inside, offsets past maxRows refused', async (t) => {
  const client = scripted((url) => {
    const after = Number(url.searchParams.get('cursor') ?? 0)
    return { headers: {}, body: { data: items(after + 1, 2), next_cursor: after + 2 < 6 ? String(after + 2) : null } }
  })
  const source = upstreamList({ client, declaration: Item, path: '/list', paging: cursorPaging({ pageSize: 2 }), maxRows: 5 })
  const read = await source.window(undefined, 3, 10)
  t.strictSame(read.rows.map((row: any) => row.id), [4, 5], 'clipped at maxRows')
  t.notOk('total' in read)
  await source.window(undefined, 5, 1).then(() => t.fail('accepted'), (error) => {
    const { body } = problemOf(error)
    t.equal(body.status, 400)
    t.match(body.errors, { offset: [/only its first 5 rows are served/] })
  })
  const bad = upstreamList({ client: scripted(() => ({ headers: {}, body: { data: [], next_cursor: 7 } })), declaration: Item, path: '/list', paging: cursorPaging() })
  await bad.window(undefined, 0, 1).then(() => t.fail('accepted'), (error) => { problemIn(t, error, 502, 'upstream-failed') })
  for (const body of [{ data: 'rows' }, [items(1, 1)]]) {
    const shapeless = upstreamList({ client: scripted(() => ({ headers: {}, body })), declaration: Item, path: '/list', paging: cursorPaging() })
    await shapeless.window(undefined, 0, 1).then(() => t.fail('accepted'), (error) => { problemIn(t, error, 502, 'upstream-failed') })
  }
  const empty = upstreamList({ client: scripted(() => ({ headers: {}, body: { data: items(1, 1), next_cursor: '' } })), declaration: Item, path: '/list', paging: cursorPaging() })
  t.strictSame(await empty.window(undefined, 0, 5), { rows: [{ id: 1, name: 'Item 1' }], more: false })
})

t.test('a plain walk past maxRows fails after the rows it may serve, and aborts the fetch ahead', async (t) => {
  const client = scripted((url) => {
    const after = Number(url.searchParams.get('cursor') ?? 0)
    return { headers: {}, body: { data: items(after + 1, 2), next_cursor: String(after + 2) } }
  })
  const source = upstreamList({ client, declaration: Item, path: '/list', paging: cursorPaging({ pageSize: 2 }), maxRows: 3 })
  const seen: number[] = []
  await t.rejects(async () => { for await (const row of rowsOf(source.stream(undefined))) seen.push((row as { id: number }).id) }, /passed the 3 rows it may walk: the response was cut/)
  t.strictSame(seen, [1, 2, 3])
  t.ok(client.signals.every((signal) => signal?.aborted === true), 'nothing is fetched for a walk that ended')
  t.throws(() => upstreamList({ client, declaration: Item, path: '/list', paging: cursorPaging(), maxRows: 0 }), /maxRows must be a positive integer/)
})

t.test('a body that is not the style\'s shape, and a failure that is not one, pass as they are', async (t) => {
  const notArray = upstreamList({ client: scripted(() => ({ headers: {}, body: { rows: [] } })), declaration: Item, path: '/list', paging: singlePaging() })
  await notArray.window(undefined, 0, 1).then(() => t.fail('accepted'), (error) => { problemIn(t, error, 502, 'upstream-failed') })
  const broken: UpstreamPaging = { ...singlePaging(), read: () => { throw new TypeError('a defect') } }
  const defect = upstreamList({ client: scripted(() => ({ headers: {}, body: [] })), declaration: Item, path: '/list', paging: broken })
  await t.rejects(defect.window(undefined, 0, 1), new TypeError('a defect'))
  const whole = upstreamList({ client: scripted(() => ({ headers: {}, body: { items: items(1, 3) } })), declaration: Item, path: (args: { q: string }) => `/search?q=${args.q}`, paging: singlePaging({ items: 'items' }) })
  t.strictSame(await whole.window({ q: 'x' }, 1, 1), { rows: [{ id: 2, name: 'Item 2' }], more: true, total: 3 })
})

t.test('a record: by its path, wrapped or not; the upstream\'s 404 is no record', async (t) => {
  const client = scripted((url) => url.pathname === '/items/9' ? undefined : { headers: {}, body: { item: { id: 1, name: 'One' } } })
  const wrapped = upstreamRecord({ client, declaration: Item, path: ({ id }: { id: number }) => `/items/${id}`, item: 'item' })
  t.strictSame(await wrapped.one({ id: 1 }), { id: 1, name: 'One' })
  t.equal(await wrapped.one({ id: 9 }), undefined)
  const bare = upstreamRecord({ client: scripted(() => ({ headers: {}, body: { id: 2, name: 'Two' } })), declaration: Item, path: '/items/2' })
  t.strictSame(await bare.one({}), { id: 2, name: 'Two' })
  const nothing = upstreamRecord({ client: scripted(() => ({ headers: {}, body: null })), declaration: Item, path: '/items/3', item: 'item' })
  await nothing.one({}).then(() => t.fail('accepted'), (error) => { problemIn(t, error, 502, 'upstream-failed') })
})

t.test('filters: each sent as the upstream\'s own parameter, to a window and to the walk; one it does not apply is refused at registration', async (t) => {
  const client = scripted((url) => ({ headers: {}, body: url.searchParams.get('name_starts') === 'Item 1' ? items(1, 1) : items(1, 3) }))
  const source = upstreamList({ client, declaration: Item, path: '/list', paging: singlePaging(), filters: { name: { prefix: 'name_starts' }, id: { min: 'id_gte', max: 'id_lte' } } })
  const mount = { kind: 'list', name: 'listItems', url: '/items', summary: 'Items', declaration: Item, source, permissions: [unrestricted], paging: { style: 'offset', unit: 'items' } } as const
  const resource = compileMount({ ...mount, filters: { name: 'prefix', id: 'range' } }, { timeZone: 'UTC' })
  t.strictSame(Object.keys(resource.query.properties), ['name_prefix', 'id_min', 'id_max', 'offset', 'limit'])
  const served = await resource.serve({ audience: 'agent', query: { name_prefix: 'Item 1', id_min: '1' }, params: {} })
  t.match(served.body, { items: [{ id: 1, name: 'Item 1' }], total_items: 1 })
  const more = await resource.serve({ audience: 'agent', query: { id_min: '1', id_max: '3', limit: '1' }, params: {} })
  t.match(more.body, { has_more: true, hint: /^Send offset=1 with the same id_min and id_max to get the next items;/ }, 'a window read uncounted says to send the filters again too')
  t.strictSame(client.asked.slice(0, 2), ['/list?name_starts=Item+1&id_gte=1', '/list?id_gte=1&id_lte=3'])
  const plain = await resource.serve({ audience: 'plain', query: { id_max: '3' }, params: {} })
  t.equal(plain.kind, 'json-array')
  t.strictSame(client.asked.slice(2), ['/list?id_lte=3'], 'the walk asks with the same parameters')
  t.throws(() => compileMount({ ...mount, filters: { name: 'equals' } }, { timeZone: 'UTC' }), new MountError('Route \'listItems\': the equals filter on "name" cannot be applied by the mount\'s source (it does not filter "name" by equals).'))
  t.throws(() => compileMount({ ...mount, source: upstreamList({ client, declaration: Item, path: '/list', paging: singlePaging() }), filters: { id: 'range' } }, { timeZone: 'UTC' }), /cannot be applied by the mount's source \(it does not filter "id" by min\)/, 'an upstream without filters applies none')
})
