// The book record, declared once: the plain schema every field, the markings for agents.
import Type from 'typebox'
import { choices, Decimal, declareRecord, formatted, handle, hidden, label, Nullable, timestamp } from '../../src/index.js'
import { euros } from '../../demo/euros.js'

export const Book = declareRecord('Book', Type.Object({
  id: handle(Type.Integer({ description: 'The book\'s identifier.' })),
  title: label(Type.String({ description: 'The title.' })),
  status: choices({ draft: 'Draft', published: 'Published' }, { description: 'Where the book is in its life.' }),
  price: formatted(Decimal({ description: 'The price in euros.' }), euros),
  published_on: timestamp(Nullable(Type.String({ format: 'date', description: 'The day the book came out, if it has.' })), { format: 'dd LLLL yyyy' }),
  author_id: hidden(Type.Integer({ description: 'The author\'s identifier.' }))
}, { description: 'A book in the catalogue.' }))
