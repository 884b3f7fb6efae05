import t from 'tap'
import Type from 'typebox'
import { AvailabilitySchema, declareRecord, fieldInfo, handle, Marking } from '../../../src/declare/index.js'
import { validationErrors } from '../../helpers/ajv.js'
import { deepFreeze } from '../../helpers/freeze.js'

const Ticket = deepFreeze(Type.Object({
  id: handle(Type.Integer({ description: 'The ticket.' })),
  state: Type.String({ description: 'Where it stands.' }),
  note: Type.Optional(Type.String({ description: 'A note.' }))
}, { description: 'A ticket.', additionalProperties: false }))

const Tickets = declareRecord('Ticket', Ticket, {
  close: {
    description: 'Close the ticket.',
    when: (ticket) => ticket.state === 'open' || { code: 'not_open', reason: 'Only an open ticket can be closed.' }
  },
  reopen: {
    description: 'Reopen the ticket.',
    when: (ticket) => ticket.state === 'closed' || { code: 'not_closed', reason: 'Only a closed ticket can be reopened.' }
  }
})

const open = deepFreeze({ id: 1, state: 'open' })
const closed = deepFreeze({ id: 2, state: 'closed', note: 'done' })

t.test('a record without affordances is its schema, presented as it is', async (t) => {
  const plain = declareRecord('Ticket', Ticket)
  t.equal(plain.name, 'Ticket')
  t.equal(plain.schema, Ticket)
  t.equal(plain.present(open), open)
  t.ok(Object.isFrozen(plain))
})

t.test('each affordance answers per row: available, or not with a code and a reason', async (t) => {
  t.strictSame(Tickets.present(open), {
    id: 1,
    state: 'open',
    affordances: {
      close: { available: true },
      reopen: { available: false, code: 'not_closed', reason: 'Only a closed ticket can be reopened.' }
    }
  })
  t.strictSame(Tickets.present(closed), {
    id: 2,
    state: 'closed',
    note: 'done',
    affordances: {
      close: { available: false, code: 'not_open', reason: 'Only an open ticket can be closed.' },
      reopen: { available: true }
    }
  })
})

t.test('the row is never written to', async (t) => {
  Tickets.present(open)
  t.strictSame(open, { id: 1, state: 'open' })
})

t.test('affordances are declared on the item, required, one schema per action', async (t) => {
  const schema = Tickets.schema
  t.strictSame(schema.required, ['id', 'state', 'affordances'])
  t.strictSame(JSON.parse(JSON.stringify(schema.properties.affordances)), {
    type: 'object',
    description: 'What can be done with this record.',
    required: ['close', 'reopen'],
    properties: {
      close: { ...JSON.parse(JSON.stringify(AvailabilitySchema)), description: 'Close the ticket.' },
      reopen: { ...JSON.parse(JSON.stringify(AvailabilitySchema)), description: 'Reopen the ticket.' }
    }
  })
})

t.test('the record keeps its fields, their markings and its annotations', async (t) => {
  const schema = Tickets.schema as typeof Tickets.schema & Record<string, unknown>
  t.equal(schema.properties.id, Ticket.properties.id)
  t.strictSame(fieldInfo(schema.properties.id).marking, Marking.handle())
  t.equal(schema.description, 'A ticket.')
  t.equal(schema.additionalProperties, false)
  t.equal(schema.type, 'object')
})

const ACTION = { type: 'string', description: 'The action that acts on the record (its operationId over HTTP, its tool\'s name over MCP), when one does: call it while available.' }

t.test('an availability is exactly one of the two shapes, either naming the action that acts on it', async (t) => {
  t.strictSame(JSON.parse(JSON.stringify(AvailabilitySchema)), {
    anyOf: [
      { type: 'object', required: ['available'], properties: { available: { type: 'boolean', const: true }, action: ACTION }, additionalProperties: false },
      {
        type: 'object',
        required: ['available', 'code', 'reason'],
        properties: {
          available: { type: 'boolean', const: false },
          code: { type: 'string', description: 'A stable machine-readable reason.' },
          reason: { type: 'string', description: 'Why the action is unavailable, for a human.' },
          action: ACTION
        },
        additionalProperties: false
      }
    ],
    description: 'Whether the action is available on this record, and if not, why.'
  })
  t.strictSame(validationErrors(AvailabilitySchema, { available: true }), [])
  t.strictSame(validationErrors(AvailabilitySchema, { available: false, code: 'x', reason: 'y' }), [])
  t.ok(validationErrors(AvailabilitySchema, { available: false }).length > 0, 'an unavailable action says why')
  t.ok(validationErrors(AvailabilitySchema, { available: true, reason: 'y' }).length > 0, 'an available one does not')
  t.strictSame(validationErrors(AvailabilitySchema, { available: true, action: 'closeTicket' }), [], 'either may name its action')
})

t.test('presented rows validate against the record\'s schema', async (t) => {
  t.strictSame(validationErrors({ type: 'array', items: Tickets.schema }, [open, closed].map(Tickets.present)), [])
  t.ok(validationErrors(Tickets.schema, open).length > 0, 'a row without its affordances does not')
})
