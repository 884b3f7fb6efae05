// The hand-written reference in Fastify: the same bearer check, the same two queries through the
// same store, the projection written out, and response schemas so fast-json-stringify writes the
// body, as a careful engineer would ship it.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { AGENT_MEDIA_TYPE } from '../../../src/audience.js'
import { handBook, handWindow } from '../hand.js'
import { bearerCheck } from './auth.js'
import { BENCH_LOGGER, type ServerOptions } from './options.js'
import { allBooks, bookPage, countBooks, MAX_PAGE_SIZE } from './queries.js'
import { openBenchStore } from './store.js'

export const AGENT_URL = '/agent/books'
export const LOAD_ALL_URL = '/books/load-all'

const nullableString = { type: ['string', 'null'] }

const PlainBook = {
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, status: { type: 'string' }, price: { type: 'string' }, published_on: nullableString, author_id: { type: 'integer' } },
  required: ['id', 'title', 'status', 'price', 'published_on', 'author_id']
}

const AgentPage = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'integer' }, title: { type: 'string' }, status: { type: 'string' }, price: { type: 'string' }, published_on: nullableString },
        required: ['id', 'title', 'status', 'price', 'published_on']
      }
    },
    page: { type: 'integer' },
    totalPages: { type: 'integer' },
    hasNext: { type: 'boolean' }
  },
  required: ['items', 'page', 'totalPages', 'hasNext']
}

const Paging = {
  type: 'object',
  properties: { page: { type: 'integer' }, limit: { type: 'integer' } },
  additionalProperties: false
}

export async function handFastifyServer ({ databasePath, key }: ServerOptions): Promise<FastifyInstance> {
  const db = openBenchStore(databasePath)
  const allowed = bearerCheck(key)
  const server = Fastify({ logger: BENCH_LOGGER })
  server.addHook('onClose', async () => { await db.destroy() })
  server.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!allowed(request.headers.authorization)) return await reply.code(401).send({ error: 'unauthorized' })
  })

  server.get(AGENT_URL, { schema: { querystring: Paging, response: { 200: AgentPage } } }, async (request, reply) => {
    const { page, limit } = request.query as { page?: number, limit?: number }
    const total = await countBooks(db)
    const window = handWindow(page, limit, total, MAX_PAGE_SIZE)
    const rows = window.offset < total ? await bookPage(db, window.offset, window.limit) : []
    reply.type(`${AGENT_MEDIA_TYPE}; charset=utf-8`)
    return { items: rows.map(handBook), page: window.page, totalPages: window.totalPages, hasNext: window.page < window.totalPages }
  })

  server.get('/books', { schema: { response: { 200: { type: 'array', items: PlainBook } } } }, async () => await allBooks(db))

  // The load-everything approach the streamed list is measured against: every row, then one string.
  server.get(LOAD_ALL_URL, async (_request, reply) => {
    const rows = await allBooks(db)
    reply.type('application/json; charset=utf-8')
    return JSON.stringify(rows)
  })
  return server
}
