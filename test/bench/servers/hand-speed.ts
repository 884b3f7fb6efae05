// A route hand-written for speed: what the gateway's own work is measured against, beside the
// careful hand-written references. Prepared statements on the SQLite file or on PostgreSQL
// (speed-reads.ts: no query builder, the same SQL every time), the projection written out for these two records, dates and
// timestamps cut from their ISO text by hand with the zone's offset looked up once per hour, and
// JSON.stringify. It serves only the pages the limit and walk scenarios measure (the ledger's
// posted_at range filters included), byte for byte as the gateway serves them.
import Fastify, { type FastifyInstance } from 'fastify'
import { DateTime } from 'luxon'
import { AGENT_MEDIA_TYPE } from '../../../src/audience.js'
import { handWindow } from '../hand.js'
import { bearerCheck } from './auth.js'
import { BENCH_LOGGER, type ServerOptions } from './options.js'
import { MAX_PAGE_SIZE } from './queries.js'
import { speedReads, type LedgerBounds } from './speed-reads.js'

export const SPEED_BOOKS_URL = '/speed/agent/books'
export const SPEED_LEDGER_URL = '/speed/agent/ledger'
export const SPEED_PLAIN_LEDGER_URL = '/speed/ledger'
export const SPEED_PLAIN_BOOKS_URL = '/speed/books'

/** The ledger's offset style, as the demo mounts it. */
const LEDGER_CEILING = 500
const LEDGER_DEFAULT_LIMIT = 50

const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const SHORT_MONTHS = LONG_MONTHS.map((month) => month.slice(0, 3))
const BOOK_STATUSES: Readonly<Record<string, string>> = { draft: 'Draft', published: 'Published' }

export async function handSpeedServer ({ databasePath, key, timeZone }: ServerOptions): Promise<FastifyInstance> {
  const reads = speedReads(databasePath)
  const postedAt = timestampCutter(timeZone)
  const allowed = bearerCheck(key)
  const server = Fastify({ logger: BENCH_LOGGER })
  server.addHook('onClose', async () => { await reads.close() })

  server.get(SPEED_BOOKS_URL, async (request, reply) => {
    if (!allowed(request.headers.authorization)) return await reply.code(401).send({ error: 'unauthorized' })
    const { page, limit } = request.query as { page?: string, limit?: string }
    const total = await reads.countBooks()
    const window = handWindow(integer(page), integer(limit), total, MAX_PAGE_SIZE)
    const rows = await reads.books(window.limit, window.offset)
    const items = rows.map((row) => ({ id: row.id, title: row.title, status: BOOK_STATUSES[row.status] ?? row.status, price: `EUR ${row.price}`, published_on: row.published_on === null ? null : longDate(row.published_on) }))
    return await reply.type(`${AGENT_MEDIA_TYPE}; charset=utf-8`).send(JSON.stringify({ items, page: window.page, totalPages: window.totalPages, hasNext: window.page < window.totalPages }))
  })

  server.get(SPEED_LEDGER_URL, async (request, reply) => {
    const query = request.query as LedgerRange & { offset?: string, limit?: string }
    const offset = integer(query.offset) ?? 0
    const asked = integer(query.limit) ?? LEDGER_DEFAULT_LIMIT
    const limit = Math.min(asked, LEDGER_CEILING)
    const { bounds, sent } = ledgerRange(query)
    const total = await reads.countLedger(bounds)
    const rows = offset < total ? await reads.ledger(bounds, limit, offset) : []
    const items = rows.map((row) => ({ id: row.id, memo: row.memo, amount: `EUR ${row.amount}`, posted_at: postedAt(row.posted_at) }))
    const returned = items.length
    const hasMore = offset + returned < total
    const again = sent.length === 0 ? '' : ` with the same ${sent.join(' and ')}`
    const clauses = [...(hasMore ? [`Send offset=${offset + returned}${again} to get the next entries; repeat until has_more is false`] : []), ...(asked > LEDGER_CEILING ? [`limit was clamped to the maximum of ${LEDGER_CEILING}`] : [])]
    const envelope: Record<string, unknown> = { items, has_more: hasMore, total_entries: total, returned, offset, limit }
    if (hasMore) envelope.next_offset = offset + returned
    if (asked > LEDGER_CEILING) envelope.limit_clamped = true
    if (clauses.length > 0) envelope.hint = `${clauses.join('; ')}.`
    return await reply.type(`${AGENT_MEDIA_TYPE}; charset=utf-8`).send(JSON.stringify(envelope))
  })

  server.get(SPEED_PLAIN_LEDGER_URL, async (request, reply) => {
    const { bounds } = ledgerRange(request.query as LedgerRange)
    return await reply.type('application/json; charset=utf-8').send(JSON.stringify(await reads.allLedger(bounds)))
  })

  server.get(SPEED_PLAIN_BOOKS_URL, async (request, reply) => {
    if (!allowed(request.headers.authorization)) return await reply.code(401).send({ error: 'unauthorized' })
    return await reply.type('application/json; charset=utf-8').send(JSON.stringify(await reads.allBooks()))
  })
  return server
}

/** The ledger's range filters, as sent. */
interface LedgerRange { posted_at_min?: string, posted_at_max?: string }

/** The filters sent, as the speed route's reads bound them and as the hint names them. */
function ledgerRange ({ posted_at_min: min, posted_at_max: max }: LedgerRange): { bounds: LedgerBounds, sent: string[] } {
  return {
    bounds: { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) },
    sent: [...(min === undefined ? [] : ['posted_at_min']), ...(max === undefined ? [] : ['posted_at_max'])]
  }
}

function integer (text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text)
}

/** `1974-05-01` as `dd LLLL yyyy`: `01 May 1974`. */
function longDate (date: string): string {
  return `${date.slice(8, 10)} ${LONG_MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`
}

/**
 * `2026-01-01T06:00:00Z` as `dd LLL yyyy HH:mm ZZ` in `zone`: the instant read by the engine, the
 * zone's offset asked of luxon once per hour of UTC (every zone this route is run in changes its
 * offset on the hour), the rest cut and padded by hand.
 */
function timestampCutter (zone: string): (iso: string) => string {
  const offsets = new Map<number, number>()
  return (iso) => {
    const instant = Date.parse(iso)
    const hour = Math.floor(instant / 3_600_000)
    let offset = offsets.get(hour)
    if (offset === undefined) {
      offset = DateTime.fromMillis(hour * 3_600_000, { zone }).offset
      offsets.set(hour, offset)
    }
    const local = new Date(instant + offset * 60_000)
    const sign = offset < 0 ? '-' : '+'
    const minutes = Math.abs(offset)
    return `${two(local.getUTCDate())} ${SHORT_MONTHS[local.getUTCMonth()]} ${local.getUTCFullYear()} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())} ${sign}${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`
  }
}

function two (value: number): string {
  return value < 10 ? `0${value}` : String(value)
}
