import t from 'tap'
import Type, { type TSchema } from 'typebox'
import { choices, Decimal, defineFormatter, formatted, handle, hidden, label, Nullable, timestamp } from '../../../src/declare/index.js'
import { withFieldInfo } from '../../../src/declare/field-info.js'
import { projectSchema, buildProjection, type JsonSchema } from '../../../src/projection/index.js'
import { validationErrors } from '../../helpers/ajv.js'
import { deepFreeze } from '../../helpers/freeze.js'
import { DECIMAL_PATTERN } from '../../../src/formats.js'

const HANDLE_DESCRIPTION = 'An identifier to pass to other tools. Never read it out.'
const euros = defineFormatter({ render: (value) => `EUR ${String(value)}`, produces: 'string', schema: { examples: ['EUR 9.99'] } })
const PRIORITIES = [[1, 'Low'], [2, 'High']] as const
const STATUSES = [['PENDING_REVIEW', 'Awaiting review'], ['LEGACY_REVIEW', 'Awaiting review'], ['PAID', 'Paid']] as const

/** The agent schema of a one-field record declared as `field`, beside a hidden field so the projection is never empty. */
function agentField (field: TSchema, handleDescription?: string): JsonSchema | undefined {
  const record = deepFreeze(Type.Object({ field, plumbing: hidden(Type.String()) }))
  const projection = buildProjection(record, { name: 'test' })
  return projectSchema(record, projection, { handleDescription }).properties?.field
}

/** The field as JSON, as the plain schema shows it. */
function plain (field: TSchema): unknown {
  return JSON.parse(JSON.stringify(field))
}

t.test('null in, null out', async (t) => {
  t.equal(projectSchema(null, buildProjection(Type.Object({ a: hidden(Type.String()) }), { name: 'test' })), null)
})

t.test('an empty projection returns the very same schema', async (t) => {
  const record = deepFreeze(Type.Object({ id: Type.Integer(), name: label(Type.String()) }))
  t.equal(projectSchema(record, buildProjection(record, { name: 'test' })), record)
})

t.test('a schema without properties comes back as the same object', async (t) => {
  const projection = buildProjection(Type.Object({ a: hidden(Type.String()) }), { name: 'test' })
  const string = deepFreeze(Type.String())
  const list = deepFreeze(Type.Array(Type.String()))
  t.equal(projectSchema(string, projection), string)
  t.equal(projectSchema(list, projection), list)
})

t.test('an array schema of items is annotated on its items', async (t) => {
  const record = Type.Object({ id: Type.Integer(), secret: hidden(Type.String()) })
  const list = deepFreeze(Type.Array(record, { description: 'Some records.' }))
  t.strictSame(projectSchema(list, buildProjection(record, { name: 'test' })), {
    type: 'array', description: 'Some records.', items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }
  })
})

t.test('the input is never modified, at any depth', async (t) => {
  const record = deepFreeze(Type.Object({
    status: choices(STATUSES),
    tags: Type.Array(choices(STATUSES), { uniqueItems: true }),
    customer: Type.Object({ secret: hidden(Type.String()) }),
    price: formatted(Decimal(), euros)
  }))
  const before = JSON.stringify(record)
  const annotated = projectSchema(record, buildProjection(record, { name: 'test' }))
  t.not(annotated, record)
  t.equal(JSON.stringify(record), before)
})

t.test('a handle keeps its schema and gains the transport\'s handle description', async (t) => {
  t.strictSame(agentField(handle(Type.Integer({ description: 'The id.' })), HANDLE_DESCRIPTION), { type: 'integer', description: HANDLE_DESCRIPTION })
})

t.test('a handle\'s own description wins over the transport\'s', async (t) => {
  t.strictSame(agentField(handle(Type.Integer({ description: 'The id.' }), 'Pass to refund.'), HANDLE_DESCRIPTION), { type: 'integer', description: 'Pass to refund.' })
})

t.test('by default a handle gains no description', async (t) => {
  const field = handle(Type.Integer({ description: 'The id.' }))
  t.equal(agentField(field), field)
})

t.test('a handle keeps its constants and their titles', async (t) => {
  const field = handle(choices(PRIORITIES))
  t.strictSame(agentField(field), { type: 'integer', oneOf: [{ const: 1, title: 'Low' }, { const: 2, title: 'High' }] })
  t.strictSame(agentField(handle(Type.Array(choices(PRIORITIES), { uniqueItems: true }))), plain(Type.Array(choices(PRIORITIES), { uniqueItems: true })))
})

t.test('a label gains a description only when its marking has one', async (t) => {
  const field = label(Type.String({ description: 'The name.' }))
  t.equal(agentField(field, HANDLE_DESCRIPTION), field)
  t.strictSame(agentField(label(Type.String({ description: 'The name.' }), 'What the record is called.')), { type: 'string', description: 'What the record is called.' })
})

t.test('content is unchanged, the very same schema', async (t) => {
  const field = Type.String({ description: 'A note.' })
  t.equal(agentField(field, HANDLE_DESCRIPTION), field)
})

t.test('a hidden field is removed from properties and from required', async (t) => {
  const record = deepFreeze(Type.Object({ id: Type.Integer(), secret: hidden(Type.String()), note: Type.Optional(Type.String()) }))
  t.strictSame(projectSchema(record, buildProjection(record, { name: 'test' })), {
    type: 'object', properties: { id: { type: 'integer' }, note: { type: 'string' } }, required: ['id']
  })
})

t.test('required is dropped when it would be empty', async (t) => {
  const record = deepFreeze(Type.Object({ secret: hidden(Type.String()), note: Type.Optional(Type.String()) }))
  t.strictSame(projectSchema(record, buildProjection(record, { name: 'test' })), { type: 'object', properties: { note: { type: 'string' } } })
})

t.test('a schema without required gains none', async (t) => {
  const record = deepFreeze(Type.Object({ secret: Type.Optional(hidden(Type.String())), note: Type.Optional(Type.String()) }))
  t.strictSame(projectSchema(record, buildProjection(record, { name: 'test' })), { type: 'object', properties: { note: { type: 'string' } } })
})

t.test('only hidden names leave required', async (t) => {
  const record = deepFreeze({ type: 'object', properties: { secret: hidden(Type.String()) }, required: ['secret', 'elsewhere'] })
  t.strictSame(projectSchema(record, buildProjection(record as unknown as TSchema, { name: 'test' })), { type: 'object', properties: {}, required: ['elsewhere'] })
})

t.test('a formatted field keeps only its title and description, the fragment and the type produced', async (t) => {
  const field = formatted(Type.Object({ amount: Type.String() }, {
    title: 'Price', description: 'What it costs.', format: 'decimal', examples: [{ amount: '1' }], enum: [{ amount: '1' }], oneOf: [{}], $id: 'price'
  }), euros)
  t.strictSame(agentField(field), { title: 'Price', description: 'What it costs.', examples: ['EUR 9.99'], type: 'string' })
})

t.test('a formatted field states the type produced, with null when its stated type admitted null', async (t) => {
  const count = defineFormatter({ render: (value) => String(value).length, produces: 'integer' })
  t.strictSame(agentField(formatted(Nullable(Type.String()), count)), { type: ['integer', 'null'] })
  t.strictSame(agentField(formatted(Type.String(), count)), { type: 'integer' })
  t.strictSame(agentField(formatted(Type.Union([Type.String(), Type.Null()]), count)), { type: 'integer' }, 'only the stated type is read')
})

t.test('a formatted field\'s marking description wins over the fragment\'s and the field\'s', async (t) => {
  const described = defineFormatter({ render: String, produces: 'string', schema: { description: 'From the formatter.', examples: ['x'] } })
  t.strictSame(agentField(formatted(Type.Integer({ description: 'From the field.' }), described)), { description: 'From the formatter.', examples: ['x'], type: 'string' })
  t.strictSame(agentField(formatted(Type.Integer({ description: 'From the field.' }), described, 'From the marking.')), { description: 'From the marking.', examples: ['x'], type: 'string' })
})

t.test('a timestamp is described by its format\'s example, null kept where admitted', async (t) => {
  t.strictSame(agentField(timestamp(Nullable(Type.String({ format: 'date', description: 'The day.' })), { format: 'dd LLLL yyyy' })), {
    description: 'The day.', examples: ['31 January 2026'], type: ['string', 'null']
  })
  t.strictSame(agentField(timestamp(Type.String({ format: 'date-time' }), { description: 'When it happened.' })), {
    examples: ['31 Jan 2026 14:05 +00:00'], type: 'string', description: 'When it happened.'
  })
})

t.test('a nested record is annotated', async (t) => {
  t.strictSame(agentField(Type.Object({ name: label(Type.String()), secret: hidden(Type.String()) }, { description: 'Who.' })), {
    type: 'object', description: 'Who.', properties: { name: { type: 'string' } }, required: ['name']
  })
  t.strictSame(agentField(Nullable(Type.Object({ name: Type.String(), secret: hidden(Type.String()) }))), {
    type: ['object', 'null'], properties: { name: { type: 'string' } }, required: ['name']
  })
})

t.test('an array of records is annotated on its items', async (t) => {
  t.strictSame(agentField(Type.Array(Type.Object({ sku: Type.String(), cost: hidden(Type.String()) }), { minItems: 1 })), {
    type: 'array', minItems: 1, items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] }
  })
})

t.test('a label\'s description rides on a nested record and on spoken choices', async (t) => {
  t.strictSame(agentField(label(Type.Object({ secret: hidden(Type.String()) }), 'Who.')), { type: 'object', properties: {}, description: 'Who.' })
  t.strictSame(agentField(label(choices(PRIORITIES), 'How urgent.')), { type: 'string', oneOf: [{ const: 'Low' }, { const: 'High' }], description: 'How urgent.' })
})

t.test('choices are described in their displays', async (t) => {
  t.strictSame(agentField(choices(PRIORITIES, { description: 'How urgent.' })), { type: 'string', oneOf: [{ const: 'Low' }, { const: 'High' }], description: 'How urgent.' })
  t.strictSame(agentField(choices(PRIORITIES, { nullable: true })), { type: ['string', 'null'], oneOf: [{ const: 'Low' }, { const: 'High' }, { const: null }] })
  t.strictSame(agentField(choices([[1, 'Low'], [null, 'Unknown']])), { type: 'string', oneOf: [{ const: 'Low' }, { const: 'Unknown' }] })
})

t.test('an enum of choices without displays is unchanged', async (t) => {
  const field = choices([['a', 'a'], ['b', 'b']])
  t.equal(agentField(field), field)
})

t.test('an array of choices is restated on its items', async (t) => {
  t.strictSame(agentField(Type.Array(choices(PRIORITIES), { uniqueItems: true })), {
    type: 'array', uniqueItems: true, items: { type: 'string', oneOf: [{ const: 'Low' }, { const: 'High' }] }
  })
})

t.test('an array whose listed values shrank drops uniqueItems', async (t) => {
  t.strictSame(agentField(Type.Array(choices(STATUSES), { uniqueItems: true, description: 'Tags.' })), {
    type: 'array', description: 'Tags.', items: { type: 'string', oneOf: [{ const: 'Awaiting review' }, { const: 'Paid' }] }
  })
})

t.test('precedence: hidden wins over a formatter, a nested record and choices', async (t) => {
  const record = deepFreeze(Type.Object({
    a: hidden(formatted(choices(PRIORITIES), euros)),
    b: hidden(Type.Object({ c: hidden(Type.String()) })),
    d: Type.String()
  }))
  t.strictSame(projectSchema(record, buildProjection(record, { name: 'test' })), { type: 'object', properties: { d: { type: 'string' } }, required: ['d'] })
})

t.test('precedence: a formatter wins over choices and over a nested record', async (t) => {
  t.strictSame(agentField(formatted(choices(PRIORITIES, { description: 'How urgent.' }), euros)), { description: 'How urgent.', examples: ['EUR 9.99'], type: 'string' })
  t.strictSame(agentField(formatted(Type.Object({ secret: hidden(Type.String()) }), euros)), { examples: ['EUR 9.99'], type: 'string' })
})

t.test('precedence: a nested record wins over choice displays', async (t) => {
  const field = withFieldInfo(Type.Object({ secret: hidden(Type.String()) }, { enum: [{ secret: 'x' }] }), { displays: new Map([['x', 'Ex']]) })
  t.strictSame(agentField(field), { type: 'object', enum: [{ secret: 'x' }], properties: {} })
})

t.test('precedence: a handle is never formatted', async (t) => {
  const record = deepFreeze(Type.Object({ price: formatted(Decimal({ description: 'The price.' }), euros), a: hidden(Type.String()) }))
  const projection = buildProjection(record, { name: 'test', overrides: { price: { kind: 'handle' } } })
  t.strictSame(projectSchema(record, projection).properties?.price, { type: 'string', format: 'decimal', pattern: DECIMAL_PATTERN, description: 'The price.' })
})

t.test('keys no declaration mentions pass through whole', async (t) => {
  const affordances = Type.Object({ refund: Type.Object({ available: Type.Boolean() }) })
  const record = deepFreeze(Type.Object({ secret: hidden(Type.String()), affordances }))
  const annotated = projectSchema(record, buildProjection(record, { name: 'test' }))
  t.equal(annotated.properties?.affordances, record.properties.affordances)
  t.strictSame(annotated.required, ['affordances'])
})

t.test('every projected payload validates against the annotated schema, and is refused by the plain one', async (t) => {
  const record = deepFreeze(Type.Object({
    id: handle(Type.Integer()),
    priority: choices(PRIORITIES),
    urgency: choices(PRIORITIES, { nullable: true }),
    tags: Type.Array(choices(STATUSES), { uniqueItems: true }),
    price: formatted(Decimal(), euros),
    secret: hidden(Type.String())
  }))
  const projection = buildProjection(record, { name: 'test' })
  const agent = projectSchema(record, projection)
  const projected = { id: 1, priority: 'High', urgency: null, tags: ['Awaiting review', 'Awaiting review'], price: 'EUR 9.99' }
  t.strictSame(validationErrors(agent, projected), [])
  t.ok(validationErrors(record, projected).length > 0)
})
