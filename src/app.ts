// The demo app `npm start` serves: the gateway, with the demo catalogue set up in its store, and
// the demo resources. The process around it (configuration, logger, listening, shutdown) is server.ts.
import type { FastifyInstance } from 'fastify'
import books from '../routes/books/index.js'
import invoices from '../routes/invoices/index.js'
import ledger from '../routes/ledger/index.js'
import gateway, { type GatewayOptions } from './gateway.js'
import { setUpDemo } from './store/index.js'

export type AppOptions = Omit<GatewayOptions, 'setUp' | 'tags'>

/** The demo resources' tags, listed in the document. */
const TAGS = [
  { name: 'books', description: 'The book catalogue: the books, each book, and each book\'s text.' },
  { name: 'invoices', description: 'Invoices, with choices shown by their displays and a refund affordance per invoice.' },
  { name: 'ledger', description: 'The ledger: a long list, open to anyone, paged by offset.' }
]

export default async function app (fastify: FastifyInstance, options: AppOptions): Promise<void> {
  await fastify.register(gateway, { ...options, setUp: setUpDemo, tags: TAGS })
  await fastify.register(books)
  await fastify.register(invoices)
  await fastify.register(ledger)
}
