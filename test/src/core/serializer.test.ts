// The serializer's choice fields: written by an `enum` and a Set instead of fast-json-stringify's
// `oneOf`, they must read byte for byte as fast-json-stringify writes the schema as declared, and
// fail where it fails. fast-json-stringify itself, given the schema untouched, is the oracle.
import fastJson from 'fast-json-stringify'
import t, { type Test } from 'tap'
import Type from 'typebox'
import { constantChoices } from '../../../src/core/constant-choices.js'
import { compileResponseSerializer, compileSerializer, responseSerializers } from '../../../src/core/serializer.js'
import { choices } from '../../../src/declare/index.js'
import { CUSTOM_FORMATS } from '../../../src/formats.js'
import { Product } from '../../../routes/products/product.js'

function oracle (schema: object): (data: unknown) => string {
  return fastJson(structuredClone(schema), { ajv: { formats: CUSTOM_FORMATS } })
}

/** Every value serialized alike, or refused alike (the same kind of error from both). */
function same (t: Test, schema: object, values: readonly unknown[]): void {
  const ours = compileSerializer({ schema })
  const theirs = oracle(schema)
  for (const value of values) {
    let expected: string | undefined
    try {
      expected = theirs(value)
    } catch (error) {
      const { constructor } = error as Error
      t.throws(() => ours(value), constructor as ErrorConstructor, `refused as the oracle refuses: ${shown(value)}`)
      continue
    }
    t.equal(ours(value), expected, shown(value))
  }
}

/** The value in ASCII: a line separator in a test's name would break tap's output. */
function shown (value: unknown): string {
  return String(JSON.stringify(value)).replace(/[^ -~]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const Mixed = choices([[1, 'One'], ['1', 'String one'], [true, 'Yes'], [2.5, 'Two and a half'], [null, 'Unknown']])
const Unicode = choices([['line\u2028sep', 'A'], ['é😀', 'B'], ['x'.repeat(50), 'C'], ["it's", 'D']])
const Odd = choices([['quote"back\\slash', 'A'], ['line\u2028sep', 'B'], ['tab\there', 'C'], ['é😀', 'D'], ['x'.repeat(50), 'E']])

t.test('a record\'s choices, written as fast-json-stringify writes their oneOf, and refused where it refuses', async (t) => {
  const row = { sku: 'SKU-1', name: 'Lamp', price: 1299, listed_at: '2026-01-01T00:00:00Z', availability: 'in_stock', warehouse_bin: 'A-01-1' }
  same(t, Product.schema, [row, { ...row, availability: 'backorder' }, { ...row, availability: 'sold out' }, { ...row, availability: 3 }, { ...row, availability: null }, { sku: 'SKU-2' }])
})

t.test('choices of every JSON type, nullable, odd strings, in lists and nested records', async (t) => {
  const schema = Type.Object({
    mixed: Mixed,
    odd: Type.Optional(Odd),
    unicode: Type.Optional(Unicode),
    level: choices([[1, 'Low'], [2, 'High']], { nullable: true }),
    tags: Type.Array(choices({ a: 'Ay', b: 'Bee' })),
    inner: Type.Object({ state: choices({ on: 'On', off: 'Off' }) })
  })
  const base = { mixed: 1, level: 1, tags: ['a', 'b'], inner: { state: 'on' } }
  same(t, schema, [
    base,
    ...[1, '1', true, 2.5, null, 2, '2', false, 'One'].map((mixed) => ({ ...base, mixed })),
    ...['quote"back\\slash', 'line\u2028sep', 'tab\there', 'é😀', 'x'.repeat(50), 'y'].map((odd) => ({ ...base, odd })),
    ...['line\u2028sep', 'é😀', 'x'.repeat(50), "it's", 'y'].map((unicode) => ({ ...base, unicode })),
    { ...base, level: null }, { ...base, level: 3 }, { ...base, level: '1' },
    { ...base, tags: [] }, { ...base, tags: ['a', 'c'] }, { ...base, tags: 'a' },
    { ...base, inner: { state: 'dim' } }, { ...base, inner: null }, { ...base, inner: 'on' },
    { ...base, inner: { toJSON: () => ({ state: 'off' }) } }, { ...base, inner: { state: 'on', toJSON: () => ({ state: 'dim' }) } },
    { ...base, inner: { toJSON: () => 'on' } }
  ])
})

t.test('the agent envelope\'s choices, in their displays', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      items: { type: 'array', items: { type: 'object', properties: { availability: { type: 'string', oneOf: [{ const: 'In stock' }, { const: 'Discontinued' }], description: 'Whether.' } } } },
      has_more: { type: 'boolean' }
    }
  }
  same(t, schema, [
    { items: [{ availability: 'In stock' }, { availability: 'Discontinued' }], has_more: false },
    { items: [{ availability: 'In stock' }, { availability: 'in_stock' }], has_more: true },
    { items: [{}], has_more: true }
  ])
})

t.test('a oneOf that is not only constants of its type, or under a schema picked by value, is left to fast-json-stringify', async (t) => {
  const cases: Array<[object, unknown[]]> = [
    [{ type: 'object', properties: { v: { type: 'string', oneOf: [{ const: 1 }, { const: 'a' }] } } }, [{ v: 1 }, { v: 'a' }, { v: 'b' }]],
    [{ type: 'object', properties: { v: { type: 'integer', oneOf: [{ const: 1.5 }] } } }, [{ v: 1.5 }, { v: 1 }]],
    [{ type: 'object', properties: { v: { type: 'string', oneOf: [{ const: 'a' }, { type: 'string', minLength: 3 }] } } }, [{ v: 'a' }, { v: 'abcd' }, { v: 'b' }]],
    [{ type: 'object', properties: { v: { type: 'string', format: 'date', oneOf: [{ const: '2026-01-01' }] } } }, [{ v: '2026-01-01' }, { v: 'x' }]],
    [{ type: 'object', properties: { v: { oneOf: [{ const: 'a' }] } } }, [{ v: 'a' }]],
    [{ type: 'object', properties: { v: { type: 'object', oneOf: [{ const: { a: 1 } }] } } }, [{ v: { a: 1 } }]],
    [{ type: 'object', anyOf: [{ properties: { v: { type: 'string', oneOf: [{ const: 'a' }] } } }] }, [{ v: 'a' }, { v: 'b' }]],
    [{ type: 'object', properties: { any: true, v: { type: 'boolean', oneOf: [{ const: true }] } } }, [{ any: 1, v: true }, { any: 2, v: false }]],
    [{ type: 'array', items: [{ type: 'string', oneOf: [{ const: 'a' }] }] }, [['a'], ['b']]]
  ]
  for (const [schema, values] of cases) same(t, schema, values)
  const empty = { type: 'object', properties: { v: { type: 'string', oneOf: [] } } }
  t.throws(() => oracle(empty), /fewer than 1 items/)
  t.throws(() => compileSerializer({ schema: empty }), /fewer than 1 items/, 'an empty list refused at compilation, as before')
})

t.test('the copy a serializer compiles: constants become an enum, but for strings fast-json-stringify writes unescaped', async (t) => {
  const copy = structuredClone(Type.Object({ availability: Product.schema.properties.availability, unicode: Unicode, odd: Odd })) as unknown as { properties: Record<string, object> }
  t.type(constantChoices(copy), 'function')
  t.strictSame(copy.properties.availability, { type: 'string', enum: ['in_stock', 'backorder', 'discontinued'], description: 'Whether the product can be ordered.' })
  t.strictSame(copy.properties.unicode, { type: 'string', enum: ['line\u2028sep', 'é😀', 'x'.repeat(50), "it's"] })
  t.ok(Array.isArray((copy.properties.odd as { oneOf?: unknown }).oneOf), 'a constant with an escape keeps its oneOf')
  t.equal(constantChoices({ type: 'object', properties: { n: { type: 'integer' } } }), undefined)
})

t.test('a schema without choices is fast-json-stringify\'s serializer as it is', async (t) => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } } }
  t.equal(compileSerializer({ schema })({ n: 2 }), '{"n":2}')
  t.strictSame(schema, { type: 'object', properties: { n: { type: 'integer' } } }, 'the declaration untouched')
  const declared = structuredClone(Product.schema)
  compileSerializer({ schema: Product.schema })
  t.strictSame(Product.schema, declared, 'a declaration with choices untouched too')
})

t.test('a route\'s serializer writes a frozen body once, and any other body every time', async (t) => {
  const serialize = compileResponseSerializer({ schema: { type: 'object', properties: { a: { type: 'number' } } } })
  let reads = 0
  const counted = () => ({ get a () { reads++; return 1 } })
  const kept = Object.freeze(counted())
  t.equal(serialize(kept), '{"a":1}')
  t.equal(serialize(kept), '{"a":1}')
  t.equal(reads, 1, 'the frozen body read once')
  const fresh = counted()
  serialize(fresh)
  serialize(fresh)
  t.equal(reads, 3, 'a body that may change is read every time')
  t.equal(compileResponseSerializer({ schema: { type: 'string' } })('text'), '"text"', 'a value that is not an object')
})

t.test('an app compiles one serializer per distinct schema, however many routes and statuses answer with it', async (t) => {
  const compile = responseSerializers()
  const problem = { type: 'object', properties: { title: { type: 'string' }, status: { type: 'integer' } } }
  const first = compile({ schema: problem })
  t.equal(compile({ schema: structuredClone(problem) }), first, 'the same schema, another object: the same serializer')
  const other = compile({ schema: { type: 'object', properties: { title: { type: 'string' } } } })
  t.not(other, first, 'another schema: its own')
  t.equal(first({ title: 'Not found', status: 404, stack: 'hidden' }), '{"title":"Not found","status":404}', 'each writes its own schema')
  t.equal(other({ title: 'Not found', status: 404 }), '{"title":"Not found"}')
  t.not(responseSerializers()({ schema: problem }), first, 'another app compiles its own')
})
