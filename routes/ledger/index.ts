// The ledger: a long list, open to anyone, that an agent pages by offset until has_more is false.
import type { FastifyInstance } from 'fastify'
import { kyselySource, unrestricted } from '../../src/index.js'
import { LedgerEntry } from './entry.js'

export default async function ledger (app: FastifyInstance): Promise<void> {
  app.mount({
    kind: 'list',
    name: 'listLedgerEntries',
    url: '/ledger',
    summary: 'List the ledger entries',
    description: 'Every entry, in id order, or those posted between two instants. Open to anyone: no key needed.',
    tags: ['ledger'],
    declaration: LedgerEntry,
    // Ordered by the primary key, so repeated requests and consecutive pages never disagree.
    source: kyselySource(app.store, () => app.store.db.selectFrom('ledger').selectAll().orderBy('id')),
    permissions: [unrestricted],
    paging: { style: 'offset', unit: 'entries', ceiling: 500, defaultLimit: 50 },
    // `posted_at_min` and `posted_at_max`: the entries are stored in UTC to the second, so text order is time order.
    filters: { posted_at: 'range' }
  })
}
