// draftFromOpenApi: what an OpenAPI 3.0 or 3.1 document drafts (records, markings, sources and
// their paging, mounts, the upstream), every guess and skip a note, and every draft one the
// gateway serves: rendered, loaded, compiled and mounted by the app a declaration file starts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { draftFromOpenApi } from '../../../src/init/from-openapi.js'
import { DraftError, renderDraft, type Draft } from '../../../src/init/draft.js'
import { buildDeclaredApp } from '../../helpers/declared-app.js'

const dir = await mkdtemp(join(tmpdir(), 'gateway-draft-'))
t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
let drafts = 0

/** The draft, rendered and served as a file is: the schema, the compiler and the core accept it. */
async function served (t: Test, draft: Draft, env: Record<string, string> = {}): Promise<void> {
  const path = join(dir, `draft-${drafts++}.yaml`)
  await writeFile(path, renderDraft(draft, 'a test draft'))
  const app = await buildDeclaredApp(t, path, { env, setUp: undefined })
  t.equal(app.resources.length, draft.declarations.mounts.length, 'every mount served')
}

const ok = (schema: object, headers?: object): object => ({ 200: { description: 'ok', ...(headers === undefined ? {} : { headers }), content: { 'application/json': { schema } } } })
const query = (name: string, schema: object = { type: 'integer' }): object => ({ name, in: 'query', schema })
// `${NAME}` below is the file's own syntax, not a template.
/* eslint-disable no-template-curly-in-string */
const notesOf = (draft: Draft): string[] => draft.notes.map(({ pointer, note }) => `${pointer} ${note}`)

t.test('OpenAPI 3.1: type lists, anyOf with null, allOf, enums, formats; a relative server and its credentials', async (t) => {
  const document = {
    openapi: '3.1.0',
    info: { title: 'Ledger API', version: '2' },
    servers: [{ url: '/api/v2' }],
    components: {
      securitySchemes: {
        key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        basic: { type: 'http', scheme: 'basic' },
        oauth: { type: 'oauth2', flows: {} },
        inQuery: { type: 'apiKey', in: 'query', name: 'key' },
        tls: { type: 'mutualTLS' }
      },
      schemas: {
        Base: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        Selfish: { type: 'object', properties: { n: { type: 'integer' } }, allOf: [{ $ref: '#/components/schemas/Selfish' }, { $ref: '#/components/schemas/Gone' }] },
        Entry: {
          title: 'An entry',
          description: 'One line of the ledger.',
          allOf: [{ $ref: '#/components/schemas/Base' }, {
            type: 'object',
            required: ['amount', 'level'],
            properties: {
              amount: { type: 'string', format: 'decimal', description: 'The amount.', title: 'Amount' },
              level: { enum: [1, 2, null] },
              booked_on: { type: ['string', 'null'], format: 'date' },
              parent: { anyOf: [{ $ref: '#/components/schemas/Base' }, { type: 'null' }] },
              either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
              mixed: { type: ['string', 'integer'] },
              free: { type: 'object', additionalProperties: true },
              nothing: {},
              empty_enum: { enum: [{}] },
              secret: { type: 'string', writeOnly: true },
              api_token: { type: 'string' },
              flags: { type: 'array', items: { type: 'boolean' }, uniqueItems: true },
              posted: { properties: { at: { type: 'string', format: 'date-time' } } },
              lines: { items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, email: { type: 'string' } } } },
              far: { $ref: 'other.yaml#/Thing' },
              bare_list: { type: 'array' },
              single: { oneOf: [{ type: 'string', nullable: true }] },
              selfish: { $ref: '#/components/schemas/Selfish' },
              gone: { $ref: '#/components/schemas/Gone' }
            }
          }]
        }
      }
    },
    paths: {
      '/entries': { get: { operationId: 'listEntries', security: [{ key: [], basic: [], oauth: [], inQuery: [], tls: [], ghost: [] }], parameters: [query('offset'), query('limit')], responses: ok({ type: 'object', properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Entry' } }, total: { type: ['integer'] } } }) } },
      '/recent': { get: { operationId: 'recentEntries', responses: ok({ type: 'array', items: { $ref: '#/components/schemas/Entry' } }) } }
    }
  }
  const draft = draftFromOpenApi(document)
  const { records, upstreams, sources, mounts } = draft.declarations
  t.strictSame(Object.keys(records), ['Entry'], 'one record per component, shared by both lists')
  t.strictSame([records.Entry.title, records.Entry.description], ['An entry', 'One line of the ledger.'], 'the component\'s title and description are the record\'s')
  t.strictSame(records.Entry.fields, {
    id: { type: 'string', handle: true },
    amount: { type: 'decimal', description: 'The amount.', title: 'Amount' },
    level: { choices: [{ value: 1, display: '1' }, { value: 2, display: '2' }], nullable: true },
    booked_on: { type: 'date', nullable: true, optional: true },
    parent: { type: 'object', nullable: true, optional: true, fields: { id: { type: 'string' } } },
    api_token: { type: 'string', optional: true, hidden: true },
    flags: { type: 'array', optional: true, uniqueItems: true, items: { type: 'boolean' } },
    posted: { type: 'object', optional: true, fields: { at: { type: 'date-time', optional: true, timestamp: {} } } },
    lines: { type: 'array', optional: true, items: { type: 'object', fields: { at: { type: 'date-time', optional: true, timestamp: {} }, email: { type: 'string', optional: true, hidden: true } } } },
    single: { type: 'string', nullable: true, optional: true },
    selfish: { type: 'object', optional: true, fields: { n: { type: 'integer', optional: true } } }
  })
  t.strictSame(upstreams, { 'ledger-api': { origin: '${LEDGER_API_URL}', headers: { 'X-Api-Key': '${LEDGER_API_KEY}', authorization: 'Bearer ${LEDGER_API_OAUTH}' } } })
  t.strictSame(sources, {
    listEntries: { upstream: 'ledger-api', path: '/api/v2/entries', paging: { style: 'offset', offset: 'offset', limit: 'limit', total: { field: 'total' }, items: 'items' } },
    recentEntries: { upstream: 'ledger-api', path: '/api/v2/recent', paging: { style: 'single' } }
  })
  t.strictSame(mounts.map((mount) => mount.kind === 'list' ? [mount.name, mount.schemaName] : []), [['listEntries', undefined], ['recentEntries', 'RecentEntries']], 'the second list pages otherwise: a schema name of its own')
  const notes = notesOf(draft).join('\n')
  for (const said of [
    /\/records\/Entry\/fields\/either: left out: it is one of several shapes/,
    /\/records\/Entry\/fields\/mixed: left out: its schema allows several types \(string, integer\)/,
    /\/records\/Entry\/fields\/free: left out: it is an object without declared properties/,
    /\/records\/Entry\/fields\/nothing: left out: its schema says no type/,
    /\/records\/Entry\/fields\/empty_enum: left out: its enum lists no string, number or boolean/,
    /\/records\/Entry\/fields\/secret: left out: it is writeOnly/,
    /refers to other\.yaml#\/Thing, outside the document/,
    /refers to #\/components\/schemas\/Gone, which the document does not hold/,
    /^\/records\/Entry no label guessed/m,
    /^\/upstreams\/ledger-api\/origin origin: the document names no absolute http\(s\) server \(its first is \/api\/v2\): set LEDGER_API_URL .*; \/api\/v2 begins every source's path\.$/m,
    /^\/upstreams\/ledger-api\/headers\/authorization security scheme basic: LEDGER_API_BASIC holds user:password in base64/m,
    /^\/upstreams\/ledger-api\/headers\/authorization security scheme oauth \(oauth2\): the token is read from LEDGER_API_OAUTH, obtained beforehand/m,
    /^\/upstreams\/ledger-api security scheme inQuery \(apiKey in query\) cannot be sent as a header/m,
    /^\/upstreams\/ledger-api security scheme tls \(mutualTLS\) cannot be sent as a header/m,
    /^\/upstreams\/ledger-api security scheme ghost \(unknown\) cannot be sent as a header/m,
    /^\/mounts\/1\/schemaName schemaName: its agent page differs/m,
    /^\/sources\/recentEntries\/paging paging guessed: none/m
  ]) t.match(notes, said)
  t.equal(upstreams?.['ledger-api'].headers?.authorization, 'Bearer ${LEDGER_API_OAUTH}', 'of two schemes sending authorization, the last one said is written, and both are noted')
  await served(t, draft, { LEDGER_API_URL: 'http://127.0.0.1:9', LEDGER_API_KEY: 'k', LEDGER_API_OAUTH: 't' })
})

t.test('OpenAPI 3.0: nullable, a cycle, choices from strings, a get-by-id naming its handle, the paging each list can have', async (t) => {
  const document = {
    openapi: '3.0.3',
    info: { title: '' },
    tags: [{ name: 'nodes' }, { name: 'unused', description: 'Not used.' }],
    servers: [{ url: 'https://{region}.example.com/v1', variables: { region: { default: 'eu' } } }],
    security: [{ token: [] }],
    components: {
      securitySchemes: { token: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Node: { type: 'object', properties: { sku: { type: 'string' }, title: { type: 'string', nullable: true }, state: { type: 'string', enum: ['in_stock', 'onBackOrder', ''] }, child: { $ref: '#/components/schemas/Node' }, loop: { $ref: '#/components/schemas/Loop' } } },
        Loop: { $ref: '#/components/schemas/Loop2' },
        Loop2: { $ref: '#/components/schemas/Loop' }
      }
    },
    paths: {
      '/nodes': { get: { operationId: 'nodes.list', tags: ['nodes'], parameters: [query('page', { type: 'integer', minimum: 0 }), query('page_size', { type: 'integer', maximum: 25 })], responses: ok({ type: 'array', items: { $ref: '#/components/schemas/Node' } }) } },
      '/by-cursor': { get: { parameters: [query('after', { type: 'string' })], responses: ok({ type: 'object', properties: { results: { type: 'array', items: { $ref: '#/components/schemas/Node' } }, nextCursor: { type: 'string' } } }) } },
      '/nodes/{sku}': { get: { operationId: 'getNode', parameters: [{ name: 'sku', in: 'path', required: true, schema: { type: 'string' } }], responses: ok({ $ref: '#/components/schemas/Node' }) } },
      '/inline/{id}': { get: { operationId: 'getInline', description: 'One inline thing.\nMore.', responses: ok({ type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } }) } }
    }
  }
  const draft = draftFromOpenApi(document, { upstream: 'shop' })
  const { records, upstreams, sources, mounts, tags } = draft.declarations
  t.strictSame(records.Node.fields, {
    sku: { type: 'string', optional: true, handle: true },
    title: { type: 'string', nullable: true, optional: true, label: true },
    state: { choices: { in_stock: 'In stock', onBackOrder: 'On back order', '': '(empty)' }, optional: true }
  }, 'the cycle and the circular reference are left out; the get-by-id\'s parameter is the handle')
  t.strictSame(records.GetInline.fields, { id: { type: 'integer', optional: true, handle: true }, name: { type: 'string', optional: true, label: true } }, 'an inline schema is named after its operation')
  t.strictSame(upstreams, { shop: { origin: 'https://eu.example.com', headers: { authorization: 'Bearer ${SHOP_TOKEN}' } } })
  t.strictSame(sources.nodesList, { upstream: 'shop', path: '/v1/nodes', paging: { style: 'page-link', page: 'page', firstPage: 0, perPage: 'page_size', pageSize: 25 } })
  t.strictSame(sources.getByCursor, { upstream: 'shop', path: '/v1/by-cursor', paging: { style: 'cursor', cursor: 'after', items: 'results', next: 'nextCursor' } })
  t.strictSame(sources.getNode, { upstream: 'shop', path: '/v1/nodes/{sku}' })
  t.strictSame(mounts.map((mount) => [mount.kind, mount.name, mount.url]), [['list', 'nodesList', '/nodes'], ['list', 'getByCursor', '/by-cursor'], ['retrieve', 'getNode', '/nodes/:sku'], ['retrieve', 'getInline', '/inline/:id']])
  t.match(mounts[3], { summary: 'One inline thing.', description: 'One inline thing.\nMore.', params: { id: { type: 'string' } } })
  t.match(mounts[0], { tags: ['nodes'], permissions: ['unrestricted'], paging: { style: 'offset', unit: 'nodes' } })
  t.equal(tags, undefined, 'a tag the document does not describe is not listed')
  const notes = notesOf(draft).join('\n')
  t.match(notes, /\/records\/Node\/fields\/child: left out: its schema Node holds itself/)
  t.match(notes, /its references go round in a circle/)
  t.match(notes, /the first server's URL https:\/\/\{region\}\.example\.com\/v1 is read with its variables' defaults: https:\/\/eu\.example\.com\/v1\./)
  t.match(notes, /paging guessed: a cursor, sent as "after", the next one read from the body's "nextCursor" \(the document names no page size parameter/)
  t.match(notes, /numbered pages \("page"\) \("page_size", [^)]*\), the next page named by a Link header, which the document does not list/)
  await served(t, draft, { SHOP_TOKEN: 't' })
})

t.test('what cannot be drafted is said, operation by operation, and the rest still serves', async (t) => {
  const item = { type: 'object', properties: { id: { type: 'integer' } } }
  const document = {
    openapi: '3.0.0',
    info: { title: 'Odd' },
    servers: [{ url: 'ftp://files.example.com' }],
    paths: {
      '/healthz': { get: { responses: ok(item) } },
      '/a/{x}.json': { get: { responses: ok(item) } },
      '/owners/{owner}/pets': { get: { responses: ok({ type: 'array', items: item }) } },
      '/needs': { get: { parameters: [{ ...query('q'), required: true }, { ...query('r'), required: true }], responses: ok({ type: 'array', items: item }) } },
      '/text': { get: { responses: { 200: { description: 'ok', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
      '/bare': { get: { responses: ok({ type: 'object', properties: { id: { type: 'integer' } } }) } },
      '/empty': { get: { responses: ok({ type: 'array', items: { type: 'object', properties: { free: { type: 'object' } } } }) } },
      '/empty/{id}': { get: { responses: ok({ type: 'object', properties: { free: { type: 'object' } } }) } },
      '/paged': { get: { parameters: [query('page')], responses: ok({ type: 'object', properties: { data: { type: 'array', items: item } } }) } },
      '/offset': { get: { parameters: [query('offset'), query('limit')], responses: ok({ type: 'array', items: item }) } },
      '/cursor': { get: { parameters: [query('cursor', { type: 'string' })], responses: ok({ type: 'object', properties: { data: { type: 'array', items: item } } }) } },
      '/two': { get: { responses: ok({ type: 'object', properties: { a: { type: 'array', items: item }, b: { type: 'array', items: item } } }) } },
      '/shared': { parameters: [{ $ref: '#/nowhere' }], get: { operationId: '123', responses: ok({ type: 'array', items: item }) }, delete: {} },
      '/by-ref': { $ref: '#/nowhere' },
      '/no-body': { get: { responses: { '2XX': { description: 'nothing' } } } },
      '/no-items': { get: { responses: ok({ type: 'array' }) } },
      '/strings': { get: { responses: ok({ type: ['array', 'null'], items: { type: 'string' } }) } },
      '/1': { get: { description: 'Just this.', responses: ok({ type: 'array', items: item }) } },
      '/cursor-array': { get: { description: ' ', parameters: [query('cursor', { type: 'string' })], responses: ok({ type: 'array', items: item }) } },
      '/pages': { get: { parameters: [query('page')], responses: ok({ type: 'array', items: item }) } },
      '/offset-header': { get: { parameters: [query('offset')], responses: ok({ type: 'array', items: item }, { 'Total-Items': { schema: { type: 'integer' } } }) } },
      '/shared-too': { get: { operationId: 'getShared', responses: ok({ type: 'array', items: item }) } },
      '/need-one': { get: { parameters: [{ ...query('q'), required: true }], responses: ok({ type: 'array', items: item }) } },
      '/no-schema': { get: { parameters: [{ name: 'page', in: 'query' }, { name: 'per_page', in: 'query', content: { 'application/json': {} } }], responses: ok({ type: 'array', items: item }) } }
    }
  }
  const draft = draftFromOpenApi(document)
  const notes = notesOf(draft).join('\n')
  for (const said of [
    'GET /healthz not drafted: the gateway serves a route of its own there.',
    'GET /a/{x}.json not drafted: each path parameter must be a whole segment',
    'GET /owners/{owner}/pets not drafted: a list with path parameters ({owner})',
    'GET /needs not drafted: it requires the query parameters q, r, which a list source never sends.',
    'GET /need-one not drafted: it requires the query parameter q, which a list source never sends.',
    'GET /text not drafted: its 200 response documents no JSON body.',
    'GET /bare not drafted: its 200 response is neither a list of objects nor one object named by the path\'s last parameter.',
    'GET /empty not drafted: its items have no field the gateway can declare.',
    'GET /empty/{id} not drafted: its response has no field the gateway can declare.',
    'GET /two not drafted: its 200 response is neither',
    'GET /no-body not drafted: its 200 response documents no JSON body.',
    'GET /no-items not drafted: its 200 response is neither',
    'GET /strings not drafted: its 200 response is neither',
    'path /by-ref refers to #/nowhere, which the document does not hold',
    'paging guessed: offset ("offset") and limit (the document names no page size parameter: the style\'s own is sent), the total read from the Total-Items header.',
    'paging guessed: numbered pages ("page") (the document names no page size parameter',
    'not drafted, since a draft holds the reads (declare each as an action by hand): DELETE /shared.',
    'the operation pages by number ("page"), but the rows are in a field of the body',
    'the operation pages by offset ("offset"), but documents no total',
    'the operation takes a cursor ("cursor"), but its response documents no field holding the next one',
    'the document names no absolute http(s) server (its first is ftp://files.example.com): set ODD_URL'
  ]) t.ok(notes.includes(said), said)
  t.strictSame(draft.declarations.mounts.map((mount) => mount.name), ['getPaged', 'getOffset', 'getCursor', 'getShared', 'get1', 'getCursorArray', 'getPages', 'getOffsetHeader', 'getShared2', 'getNoSchema'], 'names made from the path where the operationId cannot be one, each unique')
  t.match(draft.declarations.mounts[4], { summary: 'Just this.', paging: { unit: 'items' } })
  t.equal(draft.declarations.mounts[4].description, undefined, 'a description that is the summary is not said twice')
  t.match(draft.declarations.mounts[5], { summary: 'GET /cursor-array' })
  t.strictSame(draft.declarations.sources.getPaged, { upstream: 'odd', path: '/paged', paging: { style: 'single', items: 'data' } })
  t.strictSame(draft.declarations.sources.getNoSchema, { upstream: 'odd', path: '/no-schema', paging: { style: 'page-link', page: 'page', perPage: 'per_page' } }, 'query parameters without a schema are still read by name')
  await served(t, draft, { ODD_URL: 'http://127.0.0.1:9' })
})

t.test('the origin: a variable without a server, the server itself when absolute', async (t) => {
  const list = { get: { responses: ok({ type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } }) } }
  const bare = draftFromOpenApi({ openapi: '3.0.0', paths: { '/things': list } })
  t.strictSame(bare.declarations.upstreams, { upstream: { origin: '${UPSTREAM_URL}' } })
  t.match(notesOf(bare).join('\n'), /origin: the document names no absolute http\(s\) server: set UPSTREAM_URL to the upstream's scheme, host and port\.$/m)
  const absolute = draftFromOpenApi({ openapi: '3.0.0', servers: [{ url: 'http://127.0.0.1:9/{v}', variables: { v: {} } }], paths: { '/things': list } }, { upstream: 'plain' })
  t.strictSame(absolute.declarations.upstreams, { plain: { origin: 'http://127.0.0.1:9' } })
  t.match(absolute.declarations.sources.getThings, { path: '/%7Bv%7D/things' }, 'a variable without a default is kept as written')
  const root = draftFromOpenApi({ openapi: '3.0.0', servers: [{ url: 'http://127.0.0.1:9' }], paths: { '/things': list } })
  t.match(notesOf(root).join('\n'), /origin: the document's first server \(http:\/\/127\.0\.0\.1:9\)\.$/m)
  await served(t, bare, { UPSTREAM_URL: 'http://127.0.0.1:9' })
})

t.test('a document with nothing to draft drafts an empty file that serves nothing, and says so', async (t) => {
  const draft = draftFromOpenApi({ openapi: '3.1.0' })
  t.strictSame(draft.declarations, { records: {}, sources: {}, mounts: [] })
  t.strictSame(draft.notes, [{ pointer: '', note: 'no operation could be drafted (each is said above): the file serves nothing yet.' }])
  await served(t, draft)
})

t.test('anything but an OpenAPI 3.x document is refused with a DraftError of one line', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [null, /^is not an OpenAPI 3\.x document: it has no "openapi": "3\.x" at its top\.$/],
    [[1], /^is not an OpenAPI 3\.x document/],
    [{ swagger: '2.0' }, /^is a Swagger 2\.0 document: convert it to OpenAPI 3 first/],
    [{ openapi: '2.1' }, /^is not an OpenAPI 3\.x document: it has no "openapi": "3\.x" at its top \(it has "2\.1"\)\.$/],
    [{ openapi: 3 }, /\(it has 3\)/]
  ]
  for (const [document, said] of cases) {
    const error = t.throws(() => draftFromOpenApi(document), DraftError, JSON.stringify(document)) as DraftError
    t.match(error.message, said)
    t.notMatch(error.message, '\n', 'one line')
  }
})
