import t from 'tap'
import Type from 'typebox'
import { choices, defineFormatter, handle, hidden, label, Marking, timestamp } from '../../../src/declare/index.js'
import { projectSchema, buildProjection, projectPayload, ProjectionError } from '../../../src/projection/index.js'
import { deepFreeze } from '../../helpers/freeze.js'

const Customer = Type.Object({
  name: label(Type.String()),
  contact: Type.String(),
  secret: hidden(Type.String())
})

const Order = deepFreeze(Type.Object({
  id: handle(Type.Integer()),
  number: label(Type.String()),
  status: choices({ open: 'Open', shut: 'Shut' }),
  customer: Customer,
  lines: Type.Array(Type.Object({ sku: label(Type.String()), cost: hidden(Type.String()) })),
  note: Type.String(),
  placed_at: timestamp(Type.String({ format: 'date-time' })),
  author_id: hidden(Type.Integer())
}))

const row = deepFreeze({
  id: 1,
  number: 'O-1',
  status: 'open',
  customer: { name: 'Ada', contact: 'ada@example.org', secret: 'x' },
  lines: [{ sku: 'S1', cost: '1.00' }],
  note: 'hi',
  placed_at: '2026-01-31T13:05:09Z',
  author_id: 7
})

t.test('a declaration must be an object schema with properties', async (t) => {
  for (const schema of [Type.String(), Type.Array(Order), { type: 'object' }]) {
    t.throws(() => buildProjection(schema, { name: 'Route \'GET /orders\'' }), new ProjectionError(
      'Route \'GET /orders\': a record declaration must be an object schema with properties.'
    ))
  }
})

t.test('a projection names its mount and is frozen', async (t) => {
  const projection = buildProjection(Order, { name: 'Route \'GET /orders\'' })
  t.equal(projection.name, 'Route \'GET /orders\'')
  t.ok(Object.isFrozen(projection))
  t.equal(projection.isEmpty, false)
})

t.test('only fields with something to do are listed', async (t) => {
  const projection = buildProjection(Order, { name: 'orders' })
  t.strictSame([...projection.fields.keys()], ['id', 'status', 'customer', 'lines', 'placed_at', 'author_id'])
  t.strictSame(
    [...projection.fields.values()].map((field) => field.action),
    ['keep', 'display', 'nest', 'nest', 'format', 'hide']
  )
})

t.test('the label is the key of the field that names the record, in each record', async (t) => {
  const projection = buildProjection(Order, { name: 'orders' })
  t.equal(projection.label, 'number')
  const customer = projection.fields.get('customer')
  t.equal(customer?.action === 'nest' && customer.projection.label, 'name')
  t.equal(buildProjection(Type.Object({ a: Type.String() }), { name: 'x' }).label, undefined)
})

t.test('a record without anything to project is empty', async (t) => {
  const projection = buildProjection(Type.Object({ a: Type.String(), b: Type.Object({ c: Type.Integer() }), d: Type.Array(Type.Object({ e: Type.String() })), f: label(Type.String()) }), { name: 'x' })
  t.equal(projection.isEmpty, true)
  t.equal(projection.fields.size, 0)
})

t.test('two labels in one record are refused, naming both', async (t) => {
  t.throws(
    () => buildProjection(Type.Object({ title: label(Type.String()), subtitle: label(Type.String()) }), { name: 'Route \'GET /books\'' }),
    new ProjectionError('Route \'GET /books\': a record has one label, but "title" and "subtitle" are both marked as the label.')
  )
})

t.test('a third label is refused with the first two', async (t) => {
  t.throws(
    () => buildProjection(Type.Object({ a: label(Type.String()), b: label(Type.String()), c: label(Type.String()) }), { name: 'x' }),
    new ProjectionError('x: a record has one label, but "a" and "b" are both marked as the label.')
  )
})

t.test('two labels in a nested record are refused by their dotted path', async (t) => {
  t.throws(
    () => buildProjection(Type.Object({ customer: Type.Object({ name: label(Type.String()), contact: label(Type.String()) }) }), { name: 'Route \'GET /invoices\'' }),
    new ProjectionError('Route \'GET /invoices\': a record has one label, but "customer.name" and "customer.contact" are both marked as the label.')
  )
  t.throws(
    () => buildProjection(Type.Object({ a: Type.Object({ lines: Type.Array(Type.Object({ sku: label(Type.String()), code: label(Type.String()) })) }) }), { name: 'x' }),
    new ProjectionError('x: a record has one label, but "a.lines.sku" and "a.lines.code" are both marked as the label.')
  )
})

t.test('each nested record has its own single label', async (t) => {
  t.doesNotThrow(() => buildProjection(Order, { name: 'orders' }))
})

t.test('an override replaces the marking of a top-level field, for that mount', async (t) => {
  const projection = buildProjection(Order, { name: 'orders', overrides: { author_id: Marking.handle(), note: Marking.hidden() } })
  t.strictSame(projectPayload(row, projection), {
    id: 1,
    number: 'O-1',
    status: 'Open',
    customer: { name: 'Ada', contact: 'ada@example.org' },
    lines: [{ sku: 'S1' }],
    placed_at: '31 Jan 2026 13:05 +00:00',
    author_id: 7
  })
})

t.test('an override that leaves two labels is refused naming the mount', async (t) => {
  t.throws(
    () => buildProjection(Order, { name: 'Route \'GET /orders/by-note\'', overrides: { note: Marking.label() } }),
    new ProjectionError('Route \'GET /orders/by-note\': a record has one label, but "number" and "note" are both marked as the label.')
  )
})

t.test('an override can move the label', async (t) => {
  const projection = buildProjection(Order, { name: 'orders', overrides: { number: Marking.content(), note: Marking.label('The note.') } })
  t.equal(projection.label, 'note')
})

t.test('an override never changes another mount\'s projection', async (t) => {
  const overrides = deepFreeze({ author_id: Marking.handle() })
  const first = buildProjection(Order, { name: 'first', overrides })
  const second = buildProjection(Order, { name: 'second' })
  const third = buildProjection(Order, { name: 'third', overrides })
  t.equal((projectPayload(row, first) as Record<string, unknown>).author_id, 7)
  t.notOk(Object.hasOwn(projectPayload(row, second) as object, 'author_id'))
  t.equal((projectPayload(row, third) as Record<string, unknown>).author_id, 7)
  t.strictSame(Object.keys(projectSchema(Order, second).properties ?? {}), ['id', 'number', 'status', 'customer', 'lines', 'note', 'placed_at'])
})

t.test('overriding a name the record lacks is harmless', async (t) => {
  const plain = buildProjection(Order, { name: 'orders' })
  const projection = buildProjection(Order, { name: 'orders', overrides: { nope: Marking.label(), 'customer.secret': Marking.content() } })
  t.strictSame(projectPayload(row, projection), projectPayload(row, plain))
  t.strictSame(projectSchema(Order, projection), projectSchema(Order, plain))
})

t.test('overrides apply to top-level fields only: nested records come from the declaration', async (t) => {
  const projection = buildProjection(Order, { name: 'orders', overrides: { secret: Marking.content(), customer: Marking.content() } })
  t.strictSame((projectPayload(row, projection) as Record<string, unknown>).customer, { name: 'Ada', contact: 'ada@example.org' })
})

t.test('choices come from the declaration, whatever the override', async (t) => {
  const projection = buildProjection(Order, { name: 'orders', overrides: { number: Marking.content(), status: Marking.label('Where it stands.') } })
  t.equal((projectPayload(row, projection) as Record<string, unknown>).status, 'Open')
  t.strictSame(projectSchema(Order, projection).properties?.status, { type: 'string', oneOf: [{ const: 'Open' }, { const: 'Shut' }], description: 'Where it stands.' })
})

t.test('timestamps render in the configured zone, UTC unless told', async (t) => {
  const utc = buildProjection(Order, { name: 'orders' })
  const paris = buildProjection(Order, { name: 'orders', timeZone: 'Europe/Paris' })
  t.equal((projectPayload(row, utc) as Record<string, unknown>).placed_at, '31 Jan 2026 13:05 +00:00')
  t.equal((projectPayload(row, paris) as Record<string, unknown>).placed_at, '31 Jan 2026 14:05 +01:00')
  t.strictSame(projectSchema(Order, paris).properties?.placed_at, { type: 'string', examples: ['31 Jan 2026 14:05 +01:00'] })
})

t.test('an unknown zone is refused when the projection is built', async (t) => {
  t.throws(() => buildProjection(Order, { name: 'orders', timeZone: 'Mars/Olympus' }), { name: 'FormatterDeclarationError' })
})

t.test('a formatter override is honoured like a declared one', async (t) => {
  const shout = defineFormatter({ render: (value) => String(value).toUpperCase(), produces: 'string' })
  const projection = buildProjection(Order, { name: 'orders', overrides: { note: Marking.formatted(shout) } })
  t.equal((projectPayload(row, projection) as Record<string, unknown>).note, 'HI')
})
