// Permission checks as data: a scope check allows the keys carrying it (or every scope), and says
// why it refuses; the scopes a route asks for are listed once each.
import t from 'tap'
import { callerNoun, refusalDetail, refusingCheck, scope, scopesOf, signedIn, unrestricted } from '../../src/permissions.js'

t.test('a scope check allows a key carrying it, or every scope, and no one without a key', async (t) => {
  const reads = scope('invoices:read')
  t.equal(reads.scope, 'invoices:read')
  t.equal(reads.needsPrincipal, true)
  t.ok(reads.allows({ keyId: 'a', scopes: ['ledger:read', 'invoices:read'] }))
  t.ok(reads.allows({ keyId: 'a', scopes: 'all' }))
  t.notOk(reads.allows({ keyId: 'a', scopes: ['invoices:write'] }))
  t.notOk(reads.allows({ keyId: 'a', scopes: [] }))
  t.notOk(reads.allows(undefined))
})

t.test('a scope is written with letters, digits and _ . : / - only', async (t) => {
  for (const name of ['', 'a b', 'a+b', 'a,b', 'a"b']) t.throws(() => scope(name), /^A scope is letters, digits and _ \. : \/ - only/, JSON.stringify(name))
  t.equal(scope('api.example/v1:read_all-x').scope, 'api.example/v1:read_all-x')
})

t.test('a refusal names the missing scope, or the check', async (t) => {
  const key = { keyId: 'k', scopes: [] }
  const token = { keyId: 't', scopes: [], issuer: 'https://id.example.com' }
  t.equal(refusalDetail(scope('invoices:read'), key, 'route'), 'This key may not call this route: it lacks the scope "invoices:read"; use a key that carries it.')
  t.equal(refusalDetail(scope('invoices:read'), token, 'tool'), 'This token may not call this tool: it lacks the scope "invoices:read"; sign in again granting it.')
  t.equal(refusalDetail({ name: 'editors', needsPrincipal: true, allows: () => false }, key, 'route'), 'This key may not call this route: the "editors" check refuses it.')
  t.equal(refusalDetail({ name: 'closed', needsPrincipal: false, allows: () => false }, undefined, 'route'), 'This caller may not call this route: the "closed" check refuses it.')
  t.equal(callerNoun(key), 'key')
  t.equal(callerNoun(token), 'token')
  t.equal(refusingCheck([signedIn, scope('a'), scope('b')], { keyId: 'k', scopes: ['a'] })?.scope, 'b')
})

t.test('the scopes a route asks for, in order, each once', async (t) => {
  t.strictSame(scopesOf([signedIn, scope('b'), scope('a'), scope('b')]), ['b', 'a'])
  t.strictSame(scopesOf([unrestricted]), [])
})
