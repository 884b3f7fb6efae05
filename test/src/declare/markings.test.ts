import t from 'tap'
import Type from 'typebox'
import { choices, defineFormatter, fieldInfo, formatted, handle, hidden, label, mark, Marking, timestamp } from '../../../src/declare/index.js'
import { deepFreeze } from '../../helpers/freeze.js'

const euros = defineFormatter({ render: (value) => `EUR ${String(value)}`, produces: 'string' })

t.test('every marking is a value', async (t) => {
  t.strictSame(Marking.content(), { kind: 'content' })
  t.strictSame(Marking.handle(), { kind: 'handle', description: undefined })
  t.strictSame(Marking.handle('Pass it on.'), { kind: 'handle', description: 'Pass it on.' })
  t.strictSame(Marking.label('The name.'), { kind: 'label', description: 'The name.' })
  t.strictSame(Marking.hidden(), { kind: 'hidden' })
  t.strictSame(Marking.formatted(euros, 'The price.'), { kind: 'formatted', formatter: euros, description: 'The price.' })
  t.strictSame(Marking.timestamp('dd LLL yyyy', 'When.'), { kind: 'timestamp', format: 'dd LLL yyyy', description: 'When.' })
})

t.test('each marking helper marks a copy of the field', async (t) => {
  const field = deepFreeze(Type.String({ description: 'A field.' }))
  t.strictSame(fieldInfo(handle(field, 'Pass it on.')).marking, Marking.handle('Pass it on.'))
  t.strictSame(fieldInfo(label(field)).marking, Marking.label())
  t.strictSame(fieldInfo(hidden(field)).marking, Marking.hidden())
  t.strictSame(fieldInfo(formatted(field, euros, 'The price.')).marking, Marking.formatted(euros, 'The price.'))
  t.strictSame(fieldInfo(timestamp(field)).marking, Marking.timestamp())
  t.strictSame(fieldInfo(timestamp(field, { format: 'dd LLLL yyyy', description: 'When.' })).marking, Marking.timestamp('dd LLLL yyyy', 'When.'))
  t.strictSame(fieldInfo(mark(field, Marking.content())).marking, Marking.content())
  t.strictSame(fieldInfo(field), {}, 'the field itself is untouched')
})

t.test('the plain schema keeps no trace of a marking', async (t) => {
  const field = Type.Integer({ description: 'An id.' })
  t.equal(JSON.stringify(hidden(field)), JSON.stringify(field))
  t.equal(JSON.stringify(Type.Object({ id: handle(field) })), JSON.stringify(Type.Object({ id: field })))
})

t.test('one marking per field: marking again replaces it', async (t) => {
  t.strictSame(fieldInfo(hidden(handle(Type.Integer()))).marking, Marking.hidden())
})

t.test('a marking keeps the displays of a choice field', async (t) => {
  t.strictSame(fieldInfo(handle(choices({ a: 'A' }))), { displays: new Map([['a', 'A']]), marking: Marking.handle() })
})
