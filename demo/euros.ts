// Money as the demo catalogue shows it to agents: one formatter, shared by every resource that
// holds euros (books, the ledger), so an amount reads the same everywhere.
import { defineFormatter } from '../src/index.js'

/** A decimal amount as `EUR <amount>`, the amount kept exactly as stored. */
export const euros = defineFormatter({
  render: (amount) => `EUR ${String(amount)}`,
  produces: 'string',
  schema: { examples: ['EUR 9.99'] }
})
