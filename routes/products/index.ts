// The products: rows of another service (the demo upstream, or any API paged like GitHub's), served
// like the store's. The list pages by `page` and a `Link` header, so it has no total; a product is
// read by its SKU, and the upstream's 404 is ours. A product is reserved by an action the upstream
// acts on, through the same client (its credentials, deadline, breaker and cap).
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { pageLinkPaging, pathSegment, signedIn, unrestricted, upstreamAction, upstreamClient, upstreamList, upstreamRecord, type ActionInput, type UpstreamOptions } from '../../src/index.js'
import { Product, PRODUCT_FIELDS } from './product.js'
import { Reservation } from './reservation.js'

export interface ProductsOptions {
  /** The upstream serving `/page/products` and `/products/:sku`: its origin and the gateway's credentials. */
  readonly upstream: UpstreamOptions
}

/** The path parameter naming a product. */
const SKU = Type.Object({ sku: Type.String({ pattern: '^[A-Za-z0-9-]{1,40}$', description: 'The product\'s SKU, e.g. SKU-00001.' }) })

export default async function products (app: FastifyInstance, options: ProductsOptions): Promise<void> {
  const client = upstreamClient({ name: 'catalogue', ...options.upstream, log: app.log, observer: app.metrics.upstream })
  app.addHook('onClose', async () => { await client.close() })
  const read = { client, declaration: Product, fields: PRODUCT_FIELDS, log: app.log, validators: app.validators }
  app.mount({
    kind: 'list',
    name: 'listProducts',
    url: '/products',
    summary: 'List the products',
    description: 'Every product of the upstream catalogue, in its order. Read from the upstream as it is asked: the number of products is not known in advance.',
    tags: ['products'],
    declaration: Product,
    source: upstreamList({ ...read, path: '/page/products', paging: pageLinkPaging({ pageSize: 100 }), maxRows: 100_000 }),
    permissions: [unrestricted],
    paging: { style: 'offset', unit: 'products', ceiling: 200, defaultLimit: 20 }
  })
  app.mount({
    kind: 'retrieve',
    name: 'getProduct',
    url: '/products/:sku',
    summary: 'Get a product',
    description: 'One product of the upstream catalogue, by its SKU.',
    tags: ['products'],
    declaration: Product,
    params: SKU,
    source: upstreamRecord({ ...read, path: ({ sku }: { sku: string }) => `/products/${pathSegment('sku', sku)}` }),
    permissions: [unrestricted]
  })
  app.mount({
    kind: 'action',
    name: 'reserveProduct',
    url: '/products/:sku/reservations',
    summary: 'Reserve a product',
    description: 'Reserves a quantity of a product of the upstream catalogue, which acts on it; answers the reservation. The upstream refuses a discontinued product.',
    tags: ['products'],
    params: SKU,
    body: Type.Object({ quantity: Type.Integer({ minimum: 1, maximum: 1000, description: 'How many to reserve.' }) }),
    permissions: [signedIn],
    result: Reservation,
    creates: true,
    // It adds a reservation; it undoes nothing.
    destructive: false,
    target: upstreamAction({
      client,
      path: ({ params }: ActionInput<{ sku: string }>) => `/products/${pathSegment('sku', params.sku)}/reservations`,
      declaration: Reservation,
      validators: app.validators,
      log: app.log
    })
  })
}
