import t from 'tap'
import Type from 'typebox'
import { Book } from '../../../routes/books/book.js'
import { argumentChecker, bareRecord, NOT_CANONICAL, splitQuery, TOO_LARGE, UNKNOWN_ARGUMENT } from '../../../src/core/arguments.js'
import { compileMount } from '../../../src/core/index.js'
import { validators } from '../../../src/core/validators.js'
import { signedIn } from '../../../src/permissions.js'
import { arraySource } from '../../../src/sources/index.js'

t.test('a query splits into paging parameters and declared arguments', async (t) => {
  const paging = { page: Type.Integer(), limit: Type.Integer() }
  t.strictSame(splitQuery({ page: 2, colour: 'red', size: 3 }, paging), { paging: { page: 2 }, args: { colour: 'red', size: 3 } })
})

t.test('a bare record inherits nothing: __proto__ and constructor are names like any other', async (t) => {
  const record = bareRecord()
  const [proto, constructor] = ['__proto__', 'constructor'] as string[]
  t.equal(record[constructor], undefined)
  t.equal(record.toString, undefined)
  record[proto] = { polluted: true }
  record[constructor] = 'a value'
  t.strictSame(Object.keys(record), ['__proto__', 'constructor'])
  t.equal(record.polluted, undefined)
  // As an argument each is one more unknown name, refused by that name.
  const check = argumentChecker({ query: Type.Object({ limit: Type.Optional(Type.Integer()) }, { additionalProperties: false }) }, validators().arguments)
  const refused = t.throws(() => check({ audience: 'agent', query: record, params: {} })) as { code?: string, errors?: Record<string, string[]> }
  t.equal(refused.code, 'AG_INVALID_ARGUMENTS')
  t.strictSame(Object.entries(refused.errors ?? {}), [[proto, [UNKNOWN_ARGUMENT]], [constructor, [UNKNOWN_ARGUMENT]]])
})

t.test('the query is the declared arguments and the paging parameters, closed', async (t) => {
  const mount = { kind: 'list', name: 'listBooks', url: '/books', summary: 'Books', declaration: Book, source: arraySource([]), permissions: [signedIn] } as const
  const { query } = compileMount({ ...mount, arguments: Type.Object({ colour: Type.String() }) }, { timeZone: 'UTC' })
  t.strictSame(Object.keys(query.properties), ['colour', 'page', 'limit'])
  t.equal((query as { additionalProperties?: unknown }).additionalProperties, false)
  t.strictSame(Object.keys(compileMount(mount, { timeZone: 'UTC' }).query.properties), ['page', 'limit'])
})

t.test('a transport that sends JSON may send an integer as a number; only a safe integer is one', async (t) => {
  const check = argumentChecker({ query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }) }, validators().arguments)
  t.strictSame(check({ audience: 'agent', query: { limit: 5 }, params: {} }).args, { limit: 5 })
  t.throws(() => check({ audience: 'agent', query: { limit: 1.5 }, params: {} }), { code: 'AG_INVALID_ARGUMENTS', statusCode: 400, errors: { limit: [NOT_CANONICAL] } })
  t.throws(() => check({ audience: 'agent', query: { limit: 2 ** 60 }, params: {} }), { code: 'AG_INVALID_ARGUMENTS', statusCode: 400, errors: { limit: [TOO_LARGE] } })
  t.throws(() => check({ audience: 'agent', query: { limit: true }, params: {} }), { code: 'AG_INVALID_ARGUMENTS', statusCode: 400, errors: { limit: [NOT_CANONICAL] } })
})
