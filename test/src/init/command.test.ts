// `audience-gateway init --from-openapi`, end to end and in process: a small upstream on 127.0.0.1
// serving three lists (numbered pages with a Link header, offset with a total header, a cursor) and
// one record, its OpenAPI document drafted into a file, that file checked and served unchanged: a
// plain client gets every row exactly as the upstream sent it, across its pages, an agent the
// projected envelope. Then the document read from a URL, and each refusal.
import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { EXIT, run } from '../../../src/cli.js'
import { DraftError } from '../../../src/init/draft.js'
import { readDocument } from '../../../src/init/read-input.js'
import { buildDeclaredApp } from '../../helpers/declared-app.js'

const TOKEN = 'upstream-token-0123'
const PETS = Array.from({ length: 7 }, (_, index) => ({
  id: index + 1,
  name: `Pet ${index + 1}`,
  status: index % 2 === 0 ? 'in_stock' : 'SOLD_OUT',
  born_at: index === 3 ? null : `2026-01-0${index + 1}T10:00:00.123+02:00`,
  owner: { email: `owner${index}@example.com`, nick: index === 5 ? null : `nick${index}` },
  weight: 1.5 + index
}))
const OWNERS = Array.from({ length: 5 }, (_, index) => ({ id: `o-${index}`, full_name: `Owner ${index}`, phone: `+3100000000${index}` }))
const TOYS = Array.from({ length: 5 }, (_, index) => ({ sku: `T${index}`, title: `Toy ${index}`, tags: ['a', `t${index}`] }))

const dir = await mkdtemp(join(tmpdir(), 'gateway-init-'))
t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })

/** The upstream: its document at /openapi.json, its operations under /v1, each asking for the token. */
const upstream = createServer((request, response) => { answer(request, response) })
upstream.listen(0, '127.0.0.1')
await once(upstream, 'listening')
t.teardown(() => { upstream.close() })
const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
const calls: string[] = []

function answer (request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', origin)
  const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
  }
  if (url.pathname === '/openapi.json') return send(200, DOCUMENT)
  if (url.pathname === '/missing.json') return send(404, { message: 'no' })
  if (url.pathname === '/teapot.json') { response.writeHead(418, '').end(); return }
  if (url.pathname === '/no-content.json') { response.writeHead(204).end(); return }
  if (url.pathname === '/silent.json') return // never answered: the reader's time limit ends it
  calls.push(url.pathname + url.search)
  if (request.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { message: 'who are you?' })
  const number = (name: string, fallback: number): number => Number(url.searchParams.get(name) ?? fallback)
  if (url.pathname === '/v1/pets') {
    const [page, size] = [number('page', 1), number('per_page', 30)]
    const rows = PETS.slice((page - 1) * size, page * size)
    const next = page * size < PETS.length ? { link: `<${origin}/v1/pets?page=${page + 1}&per_page=${size}>; rel="next"` } : undefined
    return send(200, rows, next)
  }
  const pet = /^\/v1\/pets\/(\d+)$/.exec(url.pathname)
  if (pet !== null) {
    const found = PETS.find(({ id }) => id === Number(pet[1]))
    return found === undefined ? send(404, { message: 'no such pet' }) : send(200, found)
  }
  if (url.pathname === '/v1/owners') {
    const [offset, limit] = [number('offset', 0), number('limit', 100)]
    return send(200, OWNERS.slice(offset, offset + limit), { 'x-total-count': String(OWNERS.length) })
  }
  if (url.pathname === '/v1/toys') {
    const start = url.searchParams.has('cursor') ? TOYS.findIndex(({ sku }) => sku === url.searchParams.get('cursor')) : 0
    const limit = number('limit', 100)
    const rows = TOYS.slice(start, start + limit)
    return send(200, { data: rows, next_cursor: TOYS[start + limit]?.sku ?? null })
  }
  send(404, { message: 'not here' })
}

const json = (schema: object): object => ({ description: 'ok', content: { 'application/json': { schema } } })
const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Pet shop', version: '1.0.0' },
  servers: [{ url: `${origin}/v1` }],
  security: [{ bearer: [] }],
  tags: [{ name: 'pets', description: 'The shop\'s pets.' }],
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        summary: 'List the pets',
        tags: ['pets'],
        parameters: [{ $ref: '#/components/parameters/page' }, { name: 'per_page', in: 'query', schema: { type: 'integer', maximum: 3 } }],
        responses: { 200: { ...json({ type: 'array', items: { $ref: '#/components/schemas/Pet' } }), headers: { Link: { schema: { type: 'string' } } } } }
      },
      post: { responses: { 201: { description: 'made' } } }
    },
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' }, description: 'The pet\'s number.' }],
      get: { operationId: 'getPet', summary: 'Get a pet', tags: ['pets'], responses: { 200: json({ $ref: '#/components/schemas/Pet' }) } }
    },
    '/owners': {
      get: {
        operationId: 'listOwners',
        parameters: [{ name: 'offset', in: 'query', schema: { type: 'integer' } }, { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 2 } }],
        responses: { 200: { ...json({ type: 'array', items: { $ref: '#/components/schemas/Owner' } }), headers: { 'X-Total-Count': { schema: { type: 'integer' } } } } }
      }
    },
    '/toys': {
      get: {
        operationId: 'list-toys',
        parameters: [{ name: 'cursor', in: 'query', schema: { type: 'string' } }, { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 2 } }],
        responses: { 200: json({ type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Toy' } }, next_cursor: { type: 'string', nullable: true } } }) }
      }
    }
  },
  components: {
    parameters: { page: { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } } },
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Pet: {
        type: 'object',
        required: ['id', 'name', 'status', 'born_at', 'owner', 'weight'],
        properties: {
          id: { type: 'integer' },
          name: { type: 'string' },
          status: { type: 'string', enum: ['in_stock', 'SOLD_OUT'] },
          born_at: { type: 'string', format: 'date-time', nullable: true },
          owner: { type: 'object', required: ['email', 'nick'], properties: { email: { type: 'string' }, nick: { type: 'string', nullable: true } } },
          weight: { type: 'number' }
        }
      },
      Owner: { type: 'object', required: ['id', 'full_name', 'phone'], properties: { id: { type: 'string' }, full_name: { type: 'string' }, phone: { type: 'string' } } },
      Toy: { type: 'object', required: ['sku', 'title', 'tags'], properties: { sku: { type: 'string' }, title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } }
    }
  }
}
const documentPath = join(dir, 'shop.json')
await writeFile(documentPath, JSON.stringify(DOCUMENT))

/** The command run in process, with what it wrote. */
async function command (argv: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | undefined, stdout: string, stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await run(argv, { stdout: { write: (text: string) => { stdout += text } }, stderr: { write: (text: string) => { stderr += text } }, env: { TIME_ZONE: 'UTC', ...env } })
  return { code, stdout, stderr }
}

const ENV = { PET_SHOP_BEARER: TOKEN }
const out = join(dir, 'gateway.yaml')

t.test('init drafts the file, check accepts it, and serving it unchanged serves the upstream\'s values as it sent them', async (t) => {
  const drafted = await command(['init', '--from-openapi', documentPath, '--out', out])
  t.equal(drafted.code, EXIT.ok, drafted.stderr)
  t.equal(drafted.stdout, '')
  t.match(drafted.stderr, new RegExp(`^Drafted ${out} from ${documentPath}: 3 records, 4 sources, 4 mounts, \\d+ notes \\(each note a # comment above the key it concerns\\)\\.\\nNext: read the notes, set PET_SHOP_BEARER, then\\n  audience-gateway check ${out}\\n  audience-gateway serve ${out}\\n$`))
  const text = await readFile(out, 'utf8')
  t.match(text, /^# yaml-language-server: \$schema=\S+schema\/gateway\.schema\.json\n# Drafted by `audience-gateway init --from-openapi /)
  t.notMatch(text, TOKEN, 'no secret is written')
  t.match(text, /# paging guessed: numbered pages \("page"\)[^\n]*\n\s+paging: \{ style: page-link, page: page, perPage: per_page, pageSize: 3 \}/)
  t.match(text, /# hidden guessed: "email"[^\n]*\n\s+email: \{ type: string, hidden: true \}/)
  t.match(text, /not drafted, since a draft holds the reads \(declare each as an action by hand\): POST \/pets\./)

  const checked = await command(['check', out], ENV)
  t.equal(checked.code, EXIT.ok, checked.stderr)
  t.equal(checked.stdout, `${out}: valid: 3 records, 4 sources, 4 mounts\n`)
  const unset = await command(['check', out])
  t.equal(unset.code, EXIT.invalid, 'the token\'s variable is one check asks for')
  t.match(unset.stderr, /reads the environment variable PET_SHOP_BEARER, which is not set/)

  const app = await buildDeclaredApp(t, out, { env: ENV, setUp: undefined })
  const get = async (url: string, agent = false): Promise<{ status: number, body: any }> => {
    const response = await app.inject({ url, headers: agent ? { 'x-audience': 'agent' } : {} })
    return { status: response.statusCode, body: response.json() }
  }
  calls.length = 0
  t.strictSame(await get('/pets'), { status: 200, body: PETS }, 'every pet, across three upstream pages, as sent')
  t.ok(calls.includes('/v1/pets?page=3&per_page=3'), 'the last page was asked for')
  t.strictSame(await get('/owners'), { status: 200, body: OWNERS }, 'every owner, by offset, as sent')
  t.strictSame(await get('/toys'), { status: 200, body: TOYS }, 'every toy, cursor after cursor, as sent')
  t.strictSame(await get('/pets/4'), { status: 200, body: PETS[3] })
  t.equal((await get('/pets/99')).status, 404, 'the upstream\'s 404 is the gateway\'s')

  const page = await get('/pets?limit=2&offset=2', true)
  t.equal(page.status, 200)
  t.match(page.body, { offset: 2, limit: 2, has_more: true, next_offset: 4, returned: 2 })
  t.strictSame(page.body.items.map((pet: any) => Object.keys(pet).sort()), [['born_at', 'id', 'name', 'owner', 'status', 'weight'], ['born_at', 'id', 'name', 'owner', 'status', 'weight']])
  t.strictSame(page.body.items[0].owner, { nick: 'nick2' }, 'the hidden email is not shown to an agent')
  t.equal(page.body.items[0].status, 'In stock', 'the guessed display')
  t.equal(page.body.items[1].status, 'Sold out')
  t.equal(page.body.items[0].born_at, '03 Jan 2026 08:00 +00:00', 'the timestamp in TIME_ZONE')
  const owners = await get('/owners?limit=10', true)
  t.match(owners.body, { total_owners: 5, returned: 5, has_more: false })
  t.strictSame(owners.body.items[0], { id: 'o-0', full_name: 'Owner 0' }, 'the phone is hidden')
})

t.test('the document read from a URL drafts the same file; --out - writes it on stdout', async (t) => {
  const fromFile = await readFile(out, 'utf8')
  const fromUrl = await command(['init', '--from-openapi', `${origin}/openapi.json`, '--out', '-'])
  t.equal(fromUrl.code, EXIT.ok, fromUrl.stderr)
  t.equal(fromUrl.stdout.replace(/^(#[^\n]*\n)+/, ''), fromFile.replace(/^(#[^\n]*\n)+/, ''), 'the same declarations and notes, the header aside')
  t.match(fromUrl.stderr, /^Drafted on stdout from http:[^\n]*\nNext: read the notes, save the draft as a \.yaml file, set PET_SHOP_BEARER, then\n {2}audience-gateway check FILE\n/)
})

t.test('an existing file is refused without --force, and overwritten with it', async (t) => {
  const target = join(dir, 'kept.yml')
  await writeFile(target, 'mine\n')
  const refused = await command(['init', '--from-openapi', documentPath, '--out', target])
  t.equal(refused.code, EXIT.invalid)
  t.equal(refused.stderr, `${target} exists: --force overwrites it.\n`)
  t.equal(await readFile(target, 'utf8'), 'mine\n', 'left as it was')
  const forced = await command(['init', '--from-openapi', documentPath, '--out', target, '--force'])
  t.equal(forced.code, EXIT.ok)
  t.match(await readFile(target, 'utf8'), /^# yaml-language-server/)
  const nowhere = await command(['init', '--from-openapi', documentPath, '--out', join(dir, 'no', 'such', 'dir.yaml')])
  t.equal(nowhere.code, EXIT.invalid)
  t.match(nowhere.stderr, /^Cannot write .*dir\.yaml \(ENOENT\)\.\n$/)
})

t.test('what cannot be drafted from is said in one line, exit 1', async (t) => {
  await writeFile(join(dir, 'swagger.yaml'), 'swagger: "2.0"\ninfo: { title: old, version: "1" }\npaths: {}\n')
  await writeFile(join(dir, 'other.json'), '{ "name": "not an API" }')
  await writeFile(join(dir, 'broken.json'), '{ "openapi": ')
  await writeFile(join(dir, 'broken.yaml'), 'openapi: [3.0\n')
  await writeFile(join(dir, 'huge.yaml'), `openapi: 3.0.0\n# ${'x'.repeat(11 * 1024 * 1024)}\n`)
  // Each alias ten of the one before: a few lines that would read as a hundred thousand values.
  await writeFile(join(dir, 'aliases.yaml'), ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...['b', 'c', 'd', 'e'].map((name, index) => `${name}: &${name} [${Array(10).fill(`*${'abcd'[index]}`).join(', ')}]`)].join('\n'))
  const closed = createServer()
  closed.listen(0, '127.0.0.1')
  await once(closed, 'listening')
  const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/openapi.json`
  closed.close()
  await once(closed, 'close')
  const cases: Array<[string, RegExp]> = [
    [join(dir, 'absent.yaml'), /absent\.yaml cannot be read \(ENOENT\)\.$/],
    [join(dir, 'swagger.yaml'), /swagger\.yaml is a Swagger 2\.0 document: convert it to OpenAPI 3 first/],
    [join(dir, 'other.json'), /other\.json is not an OpenAPI 3\.x document: it has no "openapi": "3\.x" at its top\.$/],
    [join(dir, 'broken.json'), /broken\.json is not JSON: /],
    [join(dir, 'broken.yaml'), /broken\.yaml is neither JSON nor YAML: /],
    [join(dir, 'huge.yaml'), /huge\.yaml is larger than 10485760 bytes/],
    [join(dir, 'aliases.yaml'), /aliases\.yaml cannot be read as YAML: Excessive alias count/],
    [`${origin}/missing.json`, /missing\.json answered 404 Not Found, not the document\.$/],
    [`${origin}/teapot.json`, /teapot\.json answered 418, not the document\.$/],
    [`${origin}/no-content.json`, /no-content\.json answered 204 No Content, not the document\.$/],
    [origin.replace('//', '//reader:s3cret@') + '/openapi.json', /^Cannot draft: http:\/\/reader:\*\*\*@127\.0\.0\.1:\d+\/openapi\.json cannot be fetched: [^\n]*credentials(?![^\n]*s3cret)/],
    [closedUrl, /openapi\.json cannot be fetched: .*ECONNREFUSED/]
  ]
  for (const [input, said] of cases) {
    const refused = await command(['init', '--from-openapi', input, '--out', join(dir, 'never.yaml')])
    t.equal(refused.code, EXIT.invalid, input)
    t.match(refused.stderr, /^Cannot draft: [^\n]+\n$/, 'one line')
    t.match(refused.stderr.trimEnd(), said)
  }
})

t.test('a URL is read within its limits: an answer in time, a document no larger than the most allowed', async (t) => {
  await t.rejects(readDocument(`${origin}/silent.json`, { timeoutMs: 50 }), new DraftError('cannot be fetched: no answer within 50 ms.'))
  await t.rejects(readDocument(`${origin}/openapi.json`, { maxBytes: 100 }), new DraftError('answered more than 100 bytes, more than any OpenAPI document needs.'))
  t.match(await readDocument(`${origin}/openapi.json`, { maxBytes: JSON.stringify(DOCUMENT).length }), { openapi: '3.0.3' }, 'a document of exactly the most allowed is read')
})

t.test('usage: exactly one --from-*, a .yaml --out, no arguments; --help says it all', async (t) => {
  const refusals: Array<[readonly string[], RegExp]> = [
    [['init'], /^init: say what to draft from: --from-openapi FILE\|URL or --from-db URL\.\nUsage: audience-gateway init --from-openapi FILE\|URL \| --from-db URL \[--tables A,B\] \[--schema NAME\] \[--out FILE\] \[--force\]/],
    [['init', '--from-openapi', documentPath, '--from-db', 'x.sqlite'], /^init: one of --from-openapi, --from-db at a time\.\n/],
    [['init', '--from-openapi', documentPath, '--out', 'gateway.json'], /^init: --out names a \.yaml or \.yml file \(the guesses are YAML comments\), or - for stdout; got "gateway\.json"\.\n/],
    [['init', '--from-openapi', documentPath, 'extra'], /^init: takes no FILE; got 1 argument\.\n/],
    [['init', '--from-openapi'], /^init: Option '--from-openapi <value>' argument missing/]
  ]
  for (const [argv, said] of refusals) {
    const refused = await command(argv)
    t.equal(refused.code, EXIT.usage, argv.join(' '))
    t.match(refused.stderr, said)
  }
  const help = await command(['init', '--help'])
  t.equal(help.code, EXIT.ok)
  t.match(help.stdout, /^Usage: audience-gateway init --from-openapi FILE\|URL \| --from-db URL \[--tables A,B\] \[--schema NAME\] \[--out FILE\] \[--force\]\n\nDrafts a declaration file[\s\S]*--from-db URL[\s\S]*--tables A,B[\s\S]*--out FILE[\s\S]*--force/)
  t.match((await command(['--help'])).stdout, /\n {2}init --from-openapi FILE\|URL \| --from-db URL \[--tables A,B\] \[--schema NAME\] \[--out FILE\] \[--force\]\n {24}Draft a declaration file from a database's tables or an upstream's OpenAPI document\n/)
})
