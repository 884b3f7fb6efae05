// Rows per caller, from a declaration file: two tenants read one mount over HTTP (both audiences)
// and MCP, with tokens from a local issuer and with a key configured with a claim, on SQLite and on
// PostgreSQL, with kept answers on. Each sees exactly its own rows and totals, in every answer, the
// kept ones and the validated ones included; another's record is not found; an identity without the
// claim is refused; the rule is no argument, and every body validates against the published document.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import t, { type Test } from 'tap'
import { ASYMMETRIC_ALGORITHMS } from '../../src/identity/tokens.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'
import { startIssuer } from '../helpers/issuer.js'
import { documentedResponses, mediaTypeOf, type OpenApiDocument } from '../helpers/openapi.js'
import { freshSchema, needs } from '../helpers/services.js'

const AUDIENCE = 'https://gateway.example.com/'
const issuer = await startIssuer(AUDIENCE)
t.teardown(issuer.close)
const identity = { issuers: [{ issuer: issuer.issuer, algorithms: [...ASYMMETRIC_ALGORITHMS] }], audience: AUDIENCE, clockToleranceSeconds: 0 }

const PLAIN_KEY = 'plain-key-0123456789'
const GLOBEX_KEY = 'globex-key-0123456789'

/** 60 orders: acme holds 41, globex 19 (every third from the first), initech none. */
const ORDERS = Array.from({ length: 60 }, (_, index) => ({
  id: index + 1,
  tenant_id: index % 3 === 0 ? 'globex' : 'acme',
  number: `INV-${String(index + 1).padStart(3, '0')}`,
  status: index % 4 === 0 ? 'paid' : 'open',
  total: 100 + index
}))
const own = (tenant: string, status?: string): number[] => ORDERS.filter((order) => order.tenant_id === tenant && (status === undefined || order.status === status)).map((order) => order.id)

const dir = t.testdir()
const declaration = join(dir, 'gateway.json')
await writeFile(declaration, JSON.stringify({
  records: {
    Order: {
      fields: {
        id: { type: 'integer', handle: true },
        tenant_id: { type: 'string', hidden: true },
        number: { type: 'string', label: true },
        status: { choices: { open: 'Open', paid: 'Paid' } },
        total: { type: 'integer' }
      }
    }
  },
  sources: { orders: { table: 'orders', orderBy: 'id' } },
  mounts: [
    {
      kind: 'list',
      name: 'listOrders',
      url: '/orders',
      summary: 'Orders',
      record: 'Order',
      source: 'orders',
      permissions: ['signed-in'],
      paging: { style: 'offset', unit: 'orders', ceiling: 20, defaultLimit: 7 },
      filters: { status: 'equals' },
      sort: { fields: ['total'] },
      rowRule: { tenant_id: { claim: 'org_id' } }
    },
    { kind: 'retrieve', name: 'getOrder', url: '/orders/:id', summary: 'An order', record: 'Order', source: 'orders', permissions: ['signed-in'], params: { id: { type: 'integer' } }, rowRule: { tenant_id: { claim: 'org_id' } } }
  ]
}))

async function setUp (db: Kysely<any>): Promise<void> {
  await db.schema.createTable('orders')
    .addColumn('id', 'integer', (column) => column.primaryKey())
    .addColumn('tenant_id', 'text', (column) => column.notNull())
    .addColumn('number', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('total', 'integer', (column) => column.notNull())
    .execute()
  await db.insertInto('orders').values(ORDERS).execute()
}

const bearer = (credential: string): Record<string, string> => ({ authorization: `Bearer ${credential}` })
const agent = (credential: string): Record<string, string> => ({ ...bearer(credential), 'x-audience': 'agent' })

/** Every check, on one app serving the file from `databaseUrl`. */
async function checks (t: Test, databaseUrl: string, kind: 'sqlite' | 'postgres'): Promise<void> {
  const app = await buildDeclaredApp(t, declaration, { databaseUrl, setUp, identity, apiKeys: [PLAIN_KEY, { key: GLOBEX_KEY, claims: { org_id: 'globex' } }] })
  const documented = documentedResponses(app.swagger() as unknown as OpenApiDocument)
  const tokens = { acme: await issuer.sign({ org_id: 'acme', sub: 'ann' }), globex: await issuer.sign({ org_id: 'globex', sub: 'gil' }), initech: await issuer.sign({ org_id: 'initech', sub: 'ivy' }) }

  /** GETs `url` and checks its body against the schema published for it. */
  const get = async (t: Test, url: string, headers: Record<string, string>, route = url.split('?')[0]): Promise<{ status: number, body: any, etag?: string }> => {
    const res = await app.inject({ url, headers })
    const validate = documented.validator(route, 'get', res.statusCode, mediaTypeOf(res.headers['content-type']))
    if (validate === undefined) t.fail(`no schema published for ${res.statusCode} at ${route}`)
    else t.ok(validate(res.json()), `${url}: ${JSON.stringify(validate.errors)}`)
    return { status: res.statusCode, body: res.json(), etag: res.headers.etag as string | undefined }
  }

  await t.test('plain: each tenant its own bare array, whichever asked first; validators and kept lists are per tenant', async (t) => {
    const before = await hits(app)
    const etags = new Map<string, string>()
    for (const tenant of ['acme', 'globex', 'acme', 'globex', 'acme', 'globex', 'initech'] as const) {
      const { status, body, etag } = await get(t, '/orders', bearer(tokens[tenant]))
      t.equal(status, 200)
      t.strictSame(body.map((order: { id: number }) => order.id), own(tenant), tenant)
      t.ok(body.every((order: { tenant_id: string }) => order.tenant_id === tenant))
      // PostgreSQL's version moves with any commit in the cluster (another test file's): only SQLite's surely holds.
      if (etags.has(tenant) && kind === 'sqlite') t.equal(etag, etags.get(tenant), `${tenant}'s validator holds while the data is unchanged`)
      etags.set(tenant, etag as string)
    }
    t.equal(new Set(etags.values()).size, 3, 'one validator per tenant')
    // PostgreSQL's version moves with any write in the cluster (other tests' too): only SQLite's surely holds.
    if (kind === 'sqlite') t.ok(await hits(app) - before >= 2, 'the third list of each tenant was a kept one (the second kept it)')
    const held = await app.inject({ url: '/orders', headers: { ...bearer(tokens.globex), 'if-none-match': etags.get('acme') as string } })
    t.equal(held.statusCode, 200, 'another tenant\'s validator is not this one\'s')
    t.strictSame(held.json().map((order: { id: number }) => order.id), own('globex'))
    t.equal((await app.inject({ url: '/orders', headers: { ...bearer(tokens.globex), 'if-none-match': etags.get('globex') as string } })).statusCode, 304)
  })

  await t.test('agent: totals and pages of its own rows; walked by next_offset, every own row once', async (t) => {
    for (const tenant of ['acme', 'globex', 'acme', 'initech'] as const) {
      const seen: number[] = []
      let url: string | undefined = '/orders?limit=6'
      while (url !== undefined) {
        const { status, body } = await get(t, url, agent(tokens[tenant]), '/orders')
        t.equal(status, 200)
        t.equal(body.total_orders, own(tenant).length, `${tenant}'s total`)
        seen.push(...body.items.map((item: { id: number }) => item.id))
        url = body.next_offset === undefined ? undefined : `/orders?limit=6&offset=${body.next_offset as number}`
      }
      t.strictSame(seen, own(tenant), `${tenant} walked its own rows`)
    }
    const paid = await get(t, '/orders?status=paid&sort=-total', agent(tokens.globex), '/orders')
    t.equal(paid.body.total_orders, own('globex', 'paid').length, 'a filter narrows the tenant\'s rows')
    t.strictSame(paid.body.items.map((item: { id: number }) => item.id), own('globex', 'paid').reverse().slice(0, 7))
    t.notOk(JSON.stringify(paid.body).includes('tenant_id'), 'the hidden field reaches no agent')
  })

  await t.test('the rule is no argument: sending it is refused, and the document publishes none', async (t) => {
    const sent = await app.inject({ url: '/orders?tenant_id=globex', headers: agent(tokens.acme) })
    t.equal(sent.statusCode, 400)
    const operation = (app.swagger() as unknown as OpenApiDocument).paths['/orders'].get
    t.notOk(JSON.stringify(operation.parameters).includes('tenant_id'))
    t.match(operation.description, /Only the caller's own rows are served: those whose tenant_id is its "org_id" claim\./)
    t.match(operation.responses['403'].description, /the caller's identity lacks the claim/, 'the refusal is published')
    t.match(operation.responses['503'].description, /a bearer token whose issuer .* could not be reached/, 'so is an issuer out of reach, tokens being taken')
  })

  await t.test('one record: its own served, another\'s not found in the words of a missing one', async (t) => {
    const mine = await get(t, '/orders/2', agent(tokens.acme), '/orders/{id}')
    t.equal(mine.status, 200)
    t.equal(mine.body.id, 2)
    const theirs = await get(t, '/orders/1', bearer(tokens.acme), '/orders/{id}')
    const missing = await get(t, '/orders/999', bearer(tokens.acme), '/orders/{id}')
    t.equal(theirs.status, 404)
    t.equal(theirs.body.detail, 'No record matches id 1.')
    t.equal(missing.body.detail, 'No record matches id 999.')
  })

  await t.test('a key configured with the claim reads by it; an identity without it is a 403, not every row', async (t) => {
    t.strictSame((await get(t, '/orders', bearer(GLOBEX_KEY))).body.map((order: { id: number }) => order.id), own('globex'))
    for (const [who, credential, why] of [
      ['a key without claims', PLAIN_KEY, 'this key carries no such claim (a key\'s claims are configured with it in API_KEYS)'],
      ['a token without org_id', await issuer.sign({ sub: 'nobody' }), 'this token carries no such claim'],
      ['a token whose org_id is a list', await issuer.sign({ sub: 'many', org_id: ['acme', 'globex'] }), 'this token\'s "org_id" claim is not text, as tenant_id holds']
    ] as const) {
      for (const [url, route] of [['/orders', '/orders'], ['/orders/2', '/orders/{id}']]) {
        const refused = await get(t, url, agent(credential), route)
        t.equal(refused.status, 403, `${who}: ${url}`)
        t.equal(refused.body.type, 'urn:audience-gateway:problem:claim-required')
        t.equal(refused.body.detail, `This route serves each caller only its own rows, by the "org_id" claim of its identity, and ${why}.`)
      }
    }
  })

  await t.test('over MCP, the same rows and the same refusals', async (t) => {
    const call = async (credential: string, name: string, args: Record<string, unknown>): Promise<any> => {
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...bearer(credential), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }
      })
      t.equal(res.statusCode, 200)
      return res.json().result
    }
    for (const tenant of ['globex', 'acme'] as const) {
      const result = await call(tokens[tenant], 'listOrders', { limit: 20 })
      t.equal(result.structuredContent.total_orders, own(tenant).length, `${tenant} over MCP`)
      t.strictSame(result.structuredContent.items.map((item: { id: number }) => item.id), own(tenant).slice(0, 20))
    }
    t.equal((await call(tokens.acme, 'getOrder', { id: 1 })).content[0].text.startsWith('Not found (404): No record matches id 1.'), true)
    const refused = await call(PLAIN_KEY, 'listOrders', {})
    t.equal(refused.isError, true)
    t.match(refused.content[0].text, /^Claim required \(403\): This route serves each caller only its own rows/)
  })
}

/** Kept answers served so far. */
async function hits (app: FastifyInstance): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_response_cache_total')!.get()
  return metric.values.find((value) => value.labels.outcome === 'hit')?.value ?? 0
}

t.test('SQLite', async (t) => {
  await checks(t, ':memory:', 'sqlite')
})

t.test('PostgreSQL', async (t) => {
  if (!await needs(t, 'PostgreSQL')) return
  const { url, drop } = freshSchema()
  t.teardown(drop)
  await checks(t, url, 'postgres')
})
