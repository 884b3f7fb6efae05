// A file's records compiled to the declarations TypeScript makes: the same schemas, markings,
// choices and affordances; what the file gets wrong is an issue pointed at, never a throw.
import Type from 'typebox'
import t from 'tap'
import { compileRecords, markingOf } from '../../../src/config-file/records.js'
import type { Issue } from '../../../src/config-file/errors.js'
import type { RecordDeclarationEntry } from '../../../src/config-file/schema.js'
import { choices, declareRecord, fieldInfo, formatted, handle, hidden, label, Marking, Nullable, numberFormatter, timestamp } from '../../../src/declare/index.js'

function compiled (records: Record<string, unknown>): { records: Map<string, any>, issues: Issue[] } {
  const issues: Issue[] = []
  return { records: compileRecords(records as Record<string, RecordDeclarationEntry>, issues), issues }
}

t.test('the same schema and markings as the TypeScript declaration', async (t) => {
  const { records, issues } = compiled({
    Thing: {
      title: 'Thing',
      description: 'A thing.',
      fields: {
        id: { type: 'string', pattern: '^T', minLength: 2, maxLength: 9, handle: 'Pass it on.' },
        name: { type: 'string', label: true },
        weight: { type: 'number', minimum: 0, maximum: 99, formatted: { formatter: 'number', decimals: 1, unit: 'kg', description: 'The weight.' } },
        count: { type: 'integer', nullable: true },
        live: { type: 'boolean', optional: true, hidden: true },
        seen: { type: 'date-time', timestamp: { format: 'yyyy', description: 'The year.' } },
        level: { choices: [{ value: 1, display: 'Low' }, { value: true, display: 'true' }], nullable: true, title: 'Level' },
        bits: { type: 'array', items: { type: 'integer' } },
        inner: { type: 'object', fields: { a: { type: 'string', hidden: false } } }
      }
    }
  })
  t.strictSame(issues, [])
  const thing = records.get('Thing')
  const expected = declareRecord('Thing', Type.Object({
    id: handle(Type.String({ pattern: '^T', minLength: 2, maxLength: 9 }), 'Pass it on.'),
    name: label(Type.String()),
    weight: formatted(Type.Number({ minimum: 0, maximum: 99 }), numberFormatter({ decimals: 1, unit: 'kg' }), 'The weight.'),
    count: Nullable(Type.Integer()),
    live: Type.Optional(hidden(Type.Boolean())),
    seen: timestamp(Type.String({ format: 'date-time' }), { format: 'yyyy', description: 'The year.' }),
    level: choices([[1, 'Low'], [true, 'true']], { nullable: true, title: 'Level' }),
    bits: Type.Array(Type.Integer()),
    inner: Type.Object({ a: Type.String() })
  }, { title: 'Thing', description: 'A thing.' }))
  t.strictSame(thing.schema, expected.schema, 'the plain schema')
  const markings = Object.fromEntries(Object.entries(thing.schema.properties).map(([key, field]) => [key, fieldInfo(field).marking?.kind]))
  t.strictSame(markings, { id: 'handle', name: 'label', weight: 'formatted', count: undefined, live: 'hidden', seen: 'timestamp', level: undefined, bits: undefined, inner: undefined })
  t.equal((fieldInfo(thing.schema.properties.weight).marking as any).formatter.render(1234.56), '1,234.6 kg')
})

t.test('a formatter\'s example replaces the one it renders', async (t) => {
  const { records } = compiled({ P: { fields: { price: { type: 'integer', formatted: { formatter: 'money', currency: 'EUR', in: 'cents', example: 'EUR 12.99' } }, on: { type: 'date', formatted: { formatter: 'date' } } } } })
  const marking = fieldInfo(records.get('P').schema.properties.price).marking as any
  t.strictSame(marking.formatter.schema, { examples: ['EUR 12.99'] })
  t.equal(marking.formatter.render(1299), 'EUR 12.99')
  t.equal((fieldInfo(records.get('P').schema.properties.on).marking as any).formatter.render('2026-02-03'), '03 Feb 2026')
})

t.test('affordances answer per row: equals, or in a list', async (t) => {
  const { records, issues } = compiled({
    Order: {
      fields: { state: { choices: { open: 'Open', paid: 'Paid', sent: 'Sent' } } },
      affordances: {
        refund: { description: 'Refund it.', when: { field: 'state', equals: 'paid' }, otherwise: { code: 'not_paid', reason: 'Not paid.' } },
        cancel: { description: 'Cancel it.', when: { field: 'state', in: ['open', 'paid'] }, otherwise: { code: 'sent', reason: 'Already sent.' } }
      }
    }
  })
  t.strictSame(issues, [])
  const { present } = records.get('Order')
  t.strictSame(present({ state: 'paid' }).affordances, { refund: { available: true }, cancel: { available: true } })
  t.strictSame(present({ state: 'sent' }).affordances, {
    refund: { available: false, code: 'not_paid', reason: 'Not paid.' },
    cancel: { available: false, code: 'sent', reason: 'Already sent.' }
  })
})

t.test('what a record gets wrong is pointed at, every problem at once', async (t) => {
  const { records, issues } = compiled({
    Bad: {
      fields: {
        both: { type: 'string', choices: { a: 'A' } },
        neither: { description: 'x' },
        marked: { type: 'string', handle: true, hidden: true },
        stray: { type: 'string', fields: { a: { type: 'string' } }, items: { type: 'string' } },
        hollow: { type: 'object' },
        empty: { type: 'array' },
        deep: { type: 'array', items: { type: 'object', fields: { x: { description: 'no type' } } } },
        list: { type: 'array', items: { description: 'no type' } },
        money: { type: 'decimal', formatted: { formatter: 'money', currency: 'eur' } }
      },
      affordances: {
        go: { description: 'Go.', when: { field: 'nowhere', equals: 1, in: [1] }, otherwise: { code: 'no', reason: 'No.' } },
        stop: { description: 'Stop.', when: { field: 'marked' }, otherwise: { code: 'no', reason: 'No.' } }
      }
    },
    Labels: { fields: { a: { type: 'string', label: true }, b: { type: 'string', label: 'B.' } } }
  })
  t.equal(records.size, 0)
  t.strictSame(issues, [
    { pointer: '/records/Bad/fields/both', message: 'a field has either a "type" or "choices", not both nor neither' },
    { pointer: '/records/Bad/fields/neither', message: 'a field has either a "type" or "choices", not both nor neither' },
    { pointer: '/records/Bad/fields/marked', message: 'a field has one marking, but this one has handle and hidden' },
    { pointer: '/records/Bad/fields/stray/fields', message: 'only an "object" field has fields' },
    { pointer: '/records/Bad/fields/stray/items', message: 'only an "array" field has items' },
    { pointer: '/records/Bad/fields/hollow', message: 'an "object" field declares its "fields"' },
    { pointer: '/records/Bad/fields/empty', message: 'an "array" field declares its "items"' },
    { pointer: '/records/Bad/fields/deep/items/fields/x', message: 'a field has either a "type" or "choices", not both nor neither' },
    { pointer: '/records/Bad/fields/list/items', message: 'a field has either a "type" or "choices", not both nor neither' },
    { pointer: '/records/Bad/fields/money/formatted', message: 'A currency is an ISO 4217 code such as "EUR"; got "eur".' },
    { pointer: '/records/Bad/affordances/go/when/field', message: 'names no field of the record; its fields: both, neither, marked, stray, hollow, empty, deep, list, money' },
    { pointer: '/records/Bad/affordances/go/when', message: 'says either "equals" or "in", not both nor neither' },
    { pointer: '/records/Bad/affordances/stop/when', message: 'says either "equals" or "in", not both nor neither' },
    { pointer: '/records/Labels', message: 'Record \'Labels\': a record has one label, but "a" and "b" are both marked as the label.' }
  ])
})

t.test('an override names one marking; content unmarks', async (t) => {
  const issues: Issue[] = []
  t.strictSame(markingOf({ content: true }, '/o', issues), Marking.content())
  t.strictSame(markingOf({ label: 'Its name.' }, '/o', issues), Marking.label('Its name.'))
  t.equal(markingOf({}, '/o', issues), undefined)
  t.strictSame(issues, [])
})
