// Row rules in the core: what registration refuses (naming the mount and the field), the conditions a
// caller's identity sets, the 403 of an identity lacking the claim (or holding another type), and
// the flows: a list counted and sliced by them, a record of another caller not found, a source that
// ignores them refused rather than served, the published description saying whose rows are served.
import { Readable } from 'node:stream'
import t from 'tap'
import Type from 'typebox'
import { compileMount, compileRowRule, MountError, type ListMount, type RetrieveMount } from '../../../src/core/index.js'
import { servedCache } from '../../../src/core/served-cache.js'
import { choices, declareRecord, handle, hidden, label } from '../../../src/declare/index.js'
import { scope, signedIn, unrestricted, type Principal } from '../../../src/permissions.js'
import { arrayRecordSource, arraySource, meetsEvery, type ListSource } from '../../../src/sources/index.js'

const Order = declareRecord('Order', Type.Object({
  id: handle(Type.Integer()),
  number: label(Type.String()),
  tenant: hidden(Type.String()),
  region: Type.Integer(),
  status: choices({ open: 'Open', paid: 'Paid' }),
  lines: Type.Array(Type.String())
}))

interface Row { id: number, number: string, tenant: string, region: number, status: string, lines: string[] }

const ROWS: Row[] = Array.from({ length: 30 }, (_, index) => ({
  id: index + 1,
  number: `N-${index + 1}`,
  tenant: index % 3 === 0 ? 'globex' : 'acme',
  region: index % 2,
  status: index % 4 === 0 ? 'paid' : 'open',
  lines: []
}))

const acme: Principal = { keyId: 'a', scopes: 'all', claims: { org: 'acme' }, issuer: 'https://id.example.com' }
const globex: Principal = { keyId: 'g', scopes: 'all', claims: { org: 'globex', region: 1 } }

const context = { name: "Route 'listOrders'", schema: Order.schema, permissions: [signedIn] }

function listMount (extra: Partial<ListMount> = {}): ListMount {
  return { kind: 'list', name: 'listOrders', url: '/orders', summary: 'Orders', declaration: Order, permissions: [signedIn], source: arraySource(ROWS), paging: { style: 'offset', unit: 'orders' }, rowRule: { tenant: { claim: 'org' } }, ...extra }
}

t.test('registration refuses a rule that cannot be served, naming the mount, the field and where', async (t) => {
  const refused = (rule: unknown, extra: Partial<Parameters<typeof compileRowRule>[1]> = {}): MountError => {
    try {
      compileRowRule(rule as never, { ...context, ...extra })
    } catch (error) {
      return error as MountError
    }
    throw new Error('not refused')
  }
  t.match(refused({}), { message: "Route 'listOrders': its row rule binds no field; bind at least one to a claim, or declare no rule.", at: '/rowRule' })
  t.match(refused({ owner: { claim: 'org' } }), { message: /^Route 'listOrders': its row rule on "owner" names no top-level field of the record\.$/, at: '/rowRule/owner' })
  t.match(refused({ lines: { claim: 'org' } }), { message: /on "lines" is on a field that holds no single scalar/, at: '/rowRule/lines' })
  t.match(refused({ tenant: { claim: '' } }), { message: /on "tenant" names no claim; write \{ claim: "<name>" \}/ })
  t.match(refused({ 'a/b': { claim: 'org' } }), { at: '/rowRule/a~1b' }, 'the pointer escapes a field name')
  t.match(refused({ tenant: { claim: 'org' } }, { permissions: [unrestricted] }), { message: /its row rule reads the caller's identity, and its permissions let anyone call it; ask for a signed-in caller or a scope\.$/ })
  t.match(refused({ tenant: { claim: 'org' } }, { source: { canFilter: () => false } }), { message: /cannot be applied by the mount's source \(it does not filter "tenant" by equals\)/ })
  t.match(refused({ tenant: { claim: 'org' } }, { source: {} }), { message: /cannot be applied by the mount's source/ }, 'a source that says nothing of filtering applies nothing')
  t.match(refused({ tenant: { claim: 'org' } }, { filtered: ['tenant'] }), { message: /on "tenant" is also filtered by an argument: the field is the caller's claim, not the caller's choice; drop the filter\.$/ })
  t.throws(() => compileMount(listMount({ rowRule: { tenant: { claim: 'org' } }, filters: { tenant: 'equals' } }), { timeZone: 'UTC' }), MountError, 'a hidden field has no filter: refused by the filters first')
  t.throws(() => compileMount(listMount({ rowRule: { region: { claim: 'region' } }, filters: { region: 'equals' } }), { timeZone: 'UTC' }), { message: /also filtered by an argument/ })
})

t.test('the conditions a caller\'s identity sets, or the 403 saying what it lacks', async (t) => {
  const rule = compileRowRule({ tenant: { claim: 'org' }, region: { claim: 'region' } }, context)
  t.strictSame(rule.where(globex), [{ field: 'tenant', op: 'equals', value: 'globex' }, { field: 'region', op: 'equals', value: 1 }])
  t.equal(rule.sentence, 'Only the caller\'s own rows are served: those whose tenant is its "org" claim and whose region is its "region" claim.')
  const refusal = (principal: Principal | undefined): unknown => {
    try {
      rule.where(principal)
    } catch (error) {
      return error
    }
    throw new Error('not refused')
  }
  const detail = (why: string): string => `This route serves each caller only its own rows, by the "region" claim of its identity, and ${why}.`
  t.match(refusal(acme), { statusCode: 403, code: 'AG_CLAIM_REQUIRED', message: detail('this token carries no such claim') })
  t.match(refusal({ keyId: 'k', scopes: 'all' }), { statusCode: 403, message: /by the "org" claim of its identity, and this key carries no such claim \(a key's claims are configured with it in API_KEYS\)\.$/ })
  t.match(refusal(undefined), { statusCode: 403 })
  t.match(refusal({ ...globex, claims: { org: 'globex', region: '1' } }), { message: detail('this key\'s "region" claim is not a whole number, as region holds') })
  t.match(refusal({ ...globex, claims: { org: 'globex', region: 1.5 } }), { message: /is not a whole number/ })
  t.match(refusal({ ...globex, claims: { org: ['globex'], region: 1 } }), { message: /"org" claim is not text, as tenant holds/ }, 'a list of values is not one value')
  t.match(refusal({ ...globex, claims: { org: null, region: 1 } }), { message: /"org" claim is not text/ })
  t.match(refusal({ ...globex, claims: Object.create({ org: 'inherited', region: 1 }) as Record<string, unknown> }), { message: /"org" claim of its identity, and this key carries no such claim/ }, 'only the claims themselves count')
  const numbers = compileRowRule({ id: { claim: 'n' } }, { ...context, schema: declareRecord('N', Type.Object({ id: Type.Number(), on: Type.Boolean() })).schema })
  t.strictSame(numbers.where({ ...globex, claims: { n: 2.5 } }), [{ field: 'id', op: 'equals', value: 2.5 }])
  t.throws(() => numbers.where({ ...globex, claims: { n: Number.NaN } }), { message: /is not a number, as id holds/ })
  const flags = compileRowRule({ on: { claim: 'f' } }, { ...context, schema: declareRecord('N', Type.Object({ id: Type.Number(), on: Type.Boolean() })).schema })
  t.throws(() => flags.where({ ...globex, claims: { f: 'true' } }), { message: /is not true or false, as on holds/ })
})

t.test('a row meets the conditions when it holds each value, exactly', async (t) => {
  t.ok(meetsEvery({ tenant: 'acme', region: 1 }, [{ field: 'tenant', op: 'equals', value: 'acme' }, { field: 'region', op: 'equals', value: 1 }]))
  t.notOk(meetsEvery({ tenant: 'acme', region: '1' }, [{ field: 'region', op: 'equals', value: 1 }]))
  t.notOk(meetsEvery({}, [{ field: 'tenant', op: 'equals', value: 'acme' }]))
  t.ok(meetsEvery({}, []), 'no rule: every row')
})

t.test('a list is counted, paged and streamed by the caller\'s own rows; kept answers are the caller\'s', async (t) => {
  const resource = compileMount(listMount(), { timeZone: 'UTC', responses: servedCache({ maxBytes: 1 << 20 }) })
  t.equal(resource.description, 'Orders Only the caller\'s own rows are served: those whose tenant is its "org" claim.', 'the summary stands in for a missing description')
  t.notOk('tenant' in resource.query.properties, 'the rule is no argument')
  const own = (tenant: string): number[] => ROWS.filter((row) => row.tenant === tenant).map((row) => row.id)
  // Each tenant's answers are kept from their second ask and served from the third: acme's among globex's.
  for (const [principal, tenant] of [[acme, 'acme'], [globex, 'globex'], [acme, 'acme'], [globex, 'globex'], [acme, 'acme']] as const) {
    const page = await resource.serve({ audience: 'agent', query: { limit: '100' }, params: {}, principal }) as { body: { items: Array<{ id: number }>, total_orders: number } }
    t.equal(page.body.total_orders, own(tenant).length, `${tenant}'s total`)
    t.strictSame(page.body.items.map((item) => item.id), own(tenant), `${tenant}'s rows`)
    const plain = await resource.serve({ audience: 'plain', query: {}, params: {}, principal }) as { body: Readable | Buffer }
    const text = Buffer.isBuffer(plain.body) ? plain.body.toString() : (await plain.body.toArray()).join('')
    t.strictSame((JSON.parse(text) as Row[]).map((row) => row.id), own(tenant))
  }
  const filtering = compileMount(listMount({ filters: { status: 'equals' } }), { timeZone: 'UTC' })
  const paid = await filtering.serve({ audience: 'agent', query: { status: 'paid' }, params: {}, principal: globex }) as { body: { total_orders: number } }
  t.equal(paid.body.total_orders, ROWS.filter((row) => row.tenant === 'globex' && row.status === 'paid').length, 'a filter narrows the caller\'s own rows')
  await t.rejects(resource.serve({ audience: 'agent', query: {}, params: {}, principal: { keyId: 'k', scopes: 'all' } }), { statusCode: 403, message: /carries no such claim/ })
  await t.rejects(resource.serve({ audience: 'plain', query: {}, params: {}, principal: { keyId: 'k', scopes: 'all' } }), { statusCode: 403, message: /carries no such claim/ }, 'refused before any row is read')
})

t.test('a source that serves a row its conditions exclude is refused, never served', async (t) => {
  const careless: ListSource<unknown, Row> = { ...arraySource(ROWS), count: async () => ROWS.length, slice: async (_args, offset, limit) => ROWS.slice(offset, offset + limit), stream: async function * () { yield ROWS } }
  const resource = compileMount(listMount({ source: careless }), { timeZone: 'UTC' })
  await t.rejects(resource.serve({ audience: 'agent', query: {}, params: {}, principal: acme }), { message: /served a row its row rule excludes/ })
  const plain = await resource.serve({ audience: 'plain', query: {}, params: {}, principal: acme }).then(() => undefined, (error: unknown) => error)
  t.match(plain, { message: /served a row its row rule excludes/ }, 'a plain list refuses in its first batch, before its headers leave')
})

t.test('a record of another caller is not found, in the words of a missing one', async (t) => {
  const mount: RetrieveMount = { kind: 'retrieve', name: 'getOrder', url: '/orders/:id', summary: 'An order', description: 'One order.', declaration: Order, permissions: [scope('orders:read')], source: arrayRecordSource(ROWS, (row, args: { id: number }) => row.id === args.id), params: Type.Object({ id: Type.Integer() }), rowRule: { tenant: { claim: 'org' } } }
  const resource = compileMount(mount, { timeZone: 'UTC' })
  t.equal(resource.description, 'One order. Only the caller\'s own rows are served: those whose tenant is its "org" claim.')
  const served = await resource.serve({ audience: 'plain', query: {}, params: { id: '2' }, principal: acme }) as { body: Row }
  t.equal(served.body.tenant, 'acme')
  const other = await resource.serve({ audience: 'plain', query: {}, params: { id: '1' }, principal: acme }).then(() => undefined, (error: unknown) => error)
  const missing = await resource.serve({ audience: 'plain', query: {}, params: { id: '99' }, principal: acme }).then(() => undefined, (error: unknown) => error)
  t.match(other, { statusCode: 404, message: 'No record matches id 1.' })
  t.match(missing, { statusCode: 404, message: 'No record matches id 99.' })
  await t.rejects(resource.serve({ audience: 'plain', query: {}, params: { id: '2' }, principal: { keyId: 'k', scopes: 'all' } }), { statusCode: 403, message: /carries no such claim/ }, 'refused before it is read')
})
