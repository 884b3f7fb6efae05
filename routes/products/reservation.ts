// A reservation of a product, as the upstream catalogue answers one: what the reserve action answers.
import Type from 'typebox'
import { declareRecord, handle, timestamp } from '../../src/index.js'

export const Reservation = declareRecord('Reservation', Type.Object({
  reservation_id: handle(Type.String({ description: 'The reservation\'s identifier.' })),
  sku: handle(Type.String({ description: 'The product reserved.' })),
  quantity: Type.Integer({ minimum: 1, description: 'How many are reserved.' }),
  reserved_at: timestamp(Type.String({ format: 'date-time', description: 'When it was reserved.' }))
}, { description: 'A reservation of a product of the upstream catalogue.' }))
