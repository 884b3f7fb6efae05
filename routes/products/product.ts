// The product record of the demo upstream's catalogue: read from another service, declared here
// like any other record. The upstream nests the price (`pricing.amount_cents`); the mounts map it.
import Type from 'typebox'
import { choices, declareRecord, defineFormatter, formatted, handle, hidden, label, timestamp } from '../../src/index.js'

const AVAILABILITY = [
  ['in_stock', 'In stock'],
  ['backorder', 'On back order'],
  ['discontinued', 'Discontinued']
] as const

/** Whole euro cents as `EUR <euros>.<cents>`, as the catalogue's other amounts read. */
export const eurosFromCents = defineFormatter({
  render: (cents) => `EUR ${Math.trunc(Number(cents) / 100)}.${String(Number(cents) % 100).padStart(2, '0')}`,
  produces: 'string',
  schema: { examples: ['EUR 12.99'] }
})

export const Product = declareRecord('Product', Type.Object({
  sku: handle(Type.String({ description: 'The product\'s stock-keeping unit.' })),
  name: label(Type.String({ description: 'The product\'s name.' })),
  price: formatted(Type.Integer({ minimum: 0, description: 'The price in euro cents.' }), eurosFromCents),
  listed_at: timestamp(Type.String({ format: 'date-time', description: 'When the product was listed.' })),
  availability: choices(AVAILABILITY, { description: 'Whether the product can be ordered.' }),
  warehouse_bin: hidden(Type.String({ description: 'Where the product is shelved.' }))
}, { description: 'A product of the upstream catalogue.' }))

/** Where the record's fields are in the upstream's item, where the names differ. */
export const PRODUCT_FIELDS = { price: 'pricing.amount_cents' } as const
