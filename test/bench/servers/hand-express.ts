// The hand-written reference in Express 5: the same check, queries and projection as the Fastify
// one, JSON.stringify for the body. ETags are off: the gateway computes none, so neither side pays.
import type { Server } from 'node:http'
import express, { type NextFunction, type Request, type Response } from 'express'
import { AGENT_MEDIA_TYPE } from '../../../src/audience.js'
import { handBook, handWindow } from '../hand.js'
import { bearerCheck } from './auth.js'
import { AGENT_URL } from './hand-fastify.js'
import type { ServerOptions } from './options.js'
import { allBooks, bookPage, countBooks, MAX_PAGE_SIZE } from './queries.js'
import { openBenchStore } from './store.js'

export interface ExpressServer {
  listen: () => Promise<number>
  close: () => Promise<void>
}

export function handExpressServer ({ databasePath, key }: ServerOptions): ExpressServer {
  const db = openBenchStore(databasePath)
  const allowed = bearerCheck(key)
  const app = express()
  app.set('etag', false)
  app.disable('x-powered-by')
  app.use((request: Request, response: Response, next: NextFunction) => {
    if (allowed(request.headers.authorization)) next()
    else response.status(401).json({ error: 'unauthorized' })
  })

  app.get(AGENT_URL, async (request: Request, response: Response) => {
    const page = integer(request.query.page)
    const limit = integer(request.query.limit)
    if (page === null || limit === null) {
      response.status(400).json({ error: 'page and limit must be integers' })
      return
    }
    const total = await countBooks(db)
    const window = handWindow(page, limit, total, MAX_PAGE_SIZE)
    const rows = window.offset < total ? await bookPage(db, window.offset, window.limit) : []
    const body = { items: rows.map(handBook), page: window.page, totalPages: window.totalPages, hasNext: window.page < window.totalPages }
    response.type(`${AGENT_MEDIA_TYPE}; charset=utf-8`).send(JSON.stringify(body))
  })

  app.get('/books', async (_request: Request, response: Response) => {
    response.type('application/json; charset=utf-8').send(JSON.stringify(await allBooks(db)))
  })

  let server: Server | undefined
  return {
    listen: async () => await new Promise<number>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => { resolve((server!.address() as { port: number }).port) })
    }),
    close: async () => {
      await new Promise((resolve) => server?.close(resolve))
      await db.destroy()
    }
  }
}

/** An absent parameter, an integer, or null for anything else. */
function integer (value: unknown): number | undefined | null {
  if (value === undefined) return undefined
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : null
}
