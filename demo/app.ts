// The demo app `npm start` serves: the gateway, with the demo catalogue set up in its store, and
// the demo resources, built from the public API alone. `audience-gateway serve` with no file serves it.
import type { FastifyInstance } from 'fastify'
import books from '../routes/books/index.js'
import invoices from '../routes/invoices/index.js'
import ledger from '../routes/ledger/index.js'
import products from '../routes/products/index.js'
import { gateway, type GatewayOptions } from '../src/index.js'
import { setUpDemo } from './catalogue.js'

export type AppOptions = Omit<GatewayOptions, 'setUp' | 'tags'> & {
  /** The demo upstream's origin: when set, the products are served from it. */
  readonly upstreamUrl?: string
  /** The gateway's own bearer token for that upstream. */
  readonly upstreamToken?: string
}

/** The demo resources' tags, listed in the document. */
export const TAGS = [
  { name: 'books', description: 'The book catalogue: the books, each book, each book\'s cover and each book\'s text.' },
  { name: 'invoices', description: 'Invoices, with choices shown by their displays and a refund affordance per invoice.' },
  { name: 'ledger', description: 'The ledger: a long list, open to anyone, paged by offset.' }
]

export const PRODUCTS_TAG = { name: 'products', description: 'The products of another service, the upstream catalogue, read from it as they are asked.' }

export default async function app (fastify: FastifyInstance, options: AppOptions): Promise<void> {
  const { upstreamUrl, upstreamToken, ...gatewayOptions } = options
  await fastify.register(gateway, { ...gatewayOptions, setUp: setUpDemo, tags: upstreamUrl === undefined ? TAGS : [...TAGS, PRODUCTS_TAG] })
  await fastify.register(books)
  await fastify.register(invoices)
  await fastify.register(ledger)
  if (upstreamUrl !== undefined) {
    await fastify.register(products, { upstream: { origin: upstreamUrl, ...(upstreamToken === undefined ? {} : { headers: { authorization: `Bearer ${upstreamToken}` } }) } })
  }
}
