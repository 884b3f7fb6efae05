// The file-declared demo on PostgreSQL, in a fresh schema of its own beside others: its tables are
// found in the schema the URL names (not in another schema holding tables of the same name), and it
// serves what the TypeScript demo serves from the same store.
import t from 'tap'
import { AUTH, buildApp } from '../helpers/app.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'
import { freshSchema, needs } from '../helpers/services.js'

if (await needs(t, 'PostgreSQL')) {
  const store = freshSchema()
  t.teardown(store.drop)
  const { app: typed } = await buildApp(t, { databaseUrl: store.url })
  const declared = await buildDeclaredApp(t, 'examples/demo.gateway.json', { databaseUrl: store.url })
  for (const url of ['/books', '/books/2', '/invoices', '/ledger?offset=1230']) {
    t.test(`GET ${url}: the same answer, both audiences`, async (t) => {
      // One request id for both apps: a problem body carries it, and the two answers are compared byte for byte.
      for (const headers of [{ ...AUTH, 'x-request-id': 'compared' }, { ...AUTH, 'x-request-id': 'compared', 'x-audience': 'agent' }]) {
        const [expected, actual] = await Promise.all([typed, declared].map(async (app) => await app.inject({ method: 'GET', url, headers })))
        t.equal(actual.statusCode, expected.statusCode)
        t.equal(actual.body, expected.body)
      }
    })
  }
  t.test('the file\'s refund runs its statements on PostgreSQL, and the TypeScript demo reads what they wrote', async (t) => {
    const body = { amount: '12.50', reason: 'Damaged' }
    const refunded = await declared.inject({ method: 'POST', url: '/invoices/8/refund', payload: body, headers: { ...AUTH, 'x-audience': 'agent' } })
    t.equal(refunded.statusCode, 200)
    t.match(refunded.json(), { id: 8, status: 'Refunded', affordances: { refund: { available: false, code: 'not_paid', action: 'refundInvoice' } } })
    const again = await typed.inject({ method: 'POST', url: '/invoices/8/refund', payload: body, headers: AUTH })
    t.equal(again.statusCode, 409, 'the TypeScript refund reads the invoice the file\'s refunded')
    const invoices = (await typed.inject({ url: '/invoices?status=REFUNDED', headers: AUTH })).json()
    t.match(invoices, [{ id: 8, status: 'REFUNDED', etag: 'W/3' }])
    const ledger = (await typed.inject({ url: '/ledger' })).json().slice(1240)
    t.match(ledger, [{ id: 1241, memo: 'Refund of INV-2: Damaged', amount: '-12.50', account_id: 13, posted_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ }])
  })
  t.test('a table of another schema is not one of this store\'s', async (t) => {
    const other = freshSchema()
    t.teardown(other.drop)
    const error = await buildDeclaredApp(t, 'examples/demo.gateway.json', { databaseUrl: other.url, setUp: async (db) => { await db.schema.createTable('books').addColumn('id', 'integer').execute() } }).catch((error: Error) => error)
    t.match(String(error), /\/sources\/invoices\/table: the database has no table or view "invoices"; it has: books/)
  })
}
