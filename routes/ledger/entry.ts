// The ledger entry record: the plain schema every field, the markings for agents.
import Type from 'typebox'
import { Decimal, declareRecord, formatted, handle, hidden, label, timestamp } from '../../src/index.js'
import { euros } from '../../demo/euros.js'

export const LedgerEntry = declareRecord('LedgerEntry', Type.Object({
  id: handle(Type.Integer({ description: 'The entry\'s identifier.' })),
  memo: label(Type.String({ description: 'What the entry records.' })),
  amount: formatted(Decimal({ description: 'The amount in euros.' }), euros),
  posted_at: timestamp(Type.String({ format: 'date-time', description: 'When the entry was posted.' })),
  account_id: hidden(Type.Integer({ description: 'The account\'s identifier.' }))
}, { description: 'An entry in the ledger.' }))
