// How an upstream pages its list, one adapter per style: which URL holds a given row, and what a
// page's response says (its rows, where the next page is, the total when the upstream tells it).
// The next page is the upstream's own word: a `Link` header's `next`, the offset after a page short
// of the total, a cursor in the body. Cursors and upstream URLs stay here: the caller sees offsets.
import LinkHeader from 'http-link-header'
import { positiveInteger } from '../../paging/style.js'

/** What one upstream page said. */
export interface UpstreamPage {
  readonly rows: readonly unknown[]
  /** Where the next page is, when the upstream says there is one. */
  readonly next?: URL
  /** How many rows the list holds, when the upstream says so. */
  readonly total?: number
}

/** A response as an adapter reads it. */
export interface PageResponse {
  readonly url: URL
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: unknown
}

/** Thrown by `read` when a response is not the shape its style promises. */
export class PageShapeError extends Error {
  override name = 'PageShapeError'
}

export interface UpstreamPaging {
  /** The style's name, for logs and docs. */
  readonly style: 'page' | 'offset' | 'cursor' | 'none'
  /** Whether every page says the list's exact total. */
  readonly totals: 'exact' | 'absent'
  /** The rows a page is asked for; a page of a `page` style holds exactly this many unless it is the last. */
  readonly pageSize?: number
  /** The first page of the list at `list`. */
  first: (list: URL) => URL
  /** The page to start from to reach row `offset` (and the index of its first row), when it can be addressed. */
  at?: (list: URL, offset: number) => { readonly url: URL, readonly start: number }
  /**
   * The page `pages` after the one at `url`, found by arithmetic, where the style can address any
   * page: what a plain walk fetches ahead. A guess until the upstream names that page as next.
   */
  after?: (url: URL, pages: number) => URL | undefined
  /** A response as this style's page; throws PageShapeError when it is not one. */
  read: (response: PageResponse) => UpstreamPage
}

/** `list` with `values` set in its query. */
function withQuery (list: URL, values: Readonly<Record<string, string | number>>): URL {
  const url = new URL(list)
  for (const [name, value] of Object.entries(values)) url.searchParams.set(name, String(value))
  return url
}

function arrayAt (body: unknown, field: string | undefined): readonly unknown[] {
  const rows = field === undefined ? body : fieldOf(body, field)
  if (!Array.isArray(rows)) throw new PageShapeError(field === undefined ? 'the body is not a JSON array' : `"${field}" is not an array`)
  return rows
}

function fieldOf (body: unknown, field: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : undefined
}

function header (response: PageResponse, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(', ') : value
}

export interface PageLinkOptions {
  /** The page number's parameter (default `page`), counted from `firstPage` (default 1). */
  readonly page?: string
  readonly firstPage?: number
  /** The page size's parameter (default `per_page`) and the size asked for (default 30). */
  readonly perPage?: string
  readonly pageSize?: number
}

/** GitHub's style: numbered pages, a `Link` header naming the next, no total. */
export function pageLinkPaging (options: PageLinkOptions = {}): UpstreamPaging {
  const page = options.page ?? 'page'
  const perPage = options.perPage ?? 'per_page'
  const firstPage = options.firstPage ?? 1
  if (!Number.isInteger(firstPage) || firstPage < 0) throw new RangeError(`firstPage must be 0 or more; got ${firstPage}.`)
  const pageSize = positiveInteger('pageSize', options.pageSize ?? 30)
  const numbered = (list: URL, index: number): URL => withQuery(list, { [page]: firstPage + index, [perPage]: pageSize })
  return {
    style: 'page',
    totals: 'absent',
    pageSize,
    first: (list) => numbered(list, 0),
    at: (list, offset) => {
      const index = Math.floor(offset / pageSize)
      return { url: numbered(list, index), start: index * pageSize }
    },
    // From the upstream's own link, which may carry more than the list's query; one without a
    // page number cannot be counted from.
    after: (url, pages) => {
      const number = url.searchParams.get(page)
      return number === null || !/^\d+$/.test(number) ? undefined : withQuery(url, { [page]: Number(number) + pages })
    },
    read: (response) => {
      const rows = arrayAt(response.body, undefined)
      const links = header(response, 'link')
      const next = links === undefined ? undefined : LinkHeader.parse(links).rel('next')[0]?.uri
      return { rows, ...(next === undefined ? {} : { next: new URL(next, response.url) }) }
    }
  }
}

export interface OffsetPagingOptions {
  /** The parameters' names (default `offset` and `limit`) and the rows asked per page (default 100). */
  readonly offset?: string
  readonly limit?: string
  readonly pageSize?: number
  /** Where the total is: a response header (`X-Total-Count`) or a field of the body. */
  readonly total: { readonly header: string } | { readonly field: string }
  /** The body's field holding the rows, when the body is an object (default: the body is the array). */
  readonly items?: string
}

/** Offset and limit, with the exact total in a header or the body: any row can be reached at once. */
export function offsetPaging (options: OffsetPagingOptions): UpstreamPaging {
  const offset = options.offset ?? 'offset'
  const limit = options.limit ?? 'limit'
  const pageSize = positiveInteger('pageSize', options.pageSize ?? 100)
  const from = (list: URL, start: number): URL => withQuery(list, { [offset]: start, [limit]: pageSize })
  return {
    style: 'offset',
    totals: 'exact',
    first: (list) => from(list, 0),
    at: (list, start) => ({ url: from(list, start), start }),
    // Full pages assumed: a page shorter than asked names a next that is not this, and the guess is dropped.
    after: (url, pages) => from(url, Number(url.searchParams.get(offset)) + pages * pageSize),
    read: (response) => {
      const rows = arrayAt(response.body, options.items)
      const total = totalOf(response, options.total)
      const start = Number(response.url.searchParams.get(offset))
      // The upstream's own word: rows remain past this page.
      const more = rows.length > 0 && start + rows.length < total
      return { rows, total, ...(more ? { next: from(response.url, start + rows.length) } : {}) }
    }
  }
}

function totalOf (response: PageResponse, where: OffsetPagingOptions['total']): number {
  const value = 'header' in where ? header(response, where.header) : fieldOf(response.body, where.field)
  const total = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value
  if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0) {
    throw new PageShapeError(`the total (${'header' in where ? `header ${where.header}` : `"${where.field}"`}) is not a count`)
  }
  return total
}

export interface CursorPagingOptions {
  /** The cursor's parameter (default `cursor`), and the page size's (default `limit`) with the size asked (default 100). */
  readonly cursor?: string
  readonly limit?: string
  readonly pageSize?: number
  /** The body's fields: the rows (default `data`) and the next cursor (default `next_cursor`; null or absent at the end). */
  readonly items?: string
  readonly next?: string
}

/** An opaque cursor in the body: the list is walked from its first page, and has no total. */
export function cursorPaging (options: CursorPagingOptions = {}): UpstreamPaging {
  const cursor = options.cursor ?? 'cursor'
  const limit = options.limit ?? 'limit'
  const pageSize = positiveInteger('pageSize', options.pageSize ?? 100)
  const items = options.items ?? 'data'
  const nextField = options.next ?? 'next_cursor'
  return {
    style: 'cursor',
    totals: 'absent',
    first: (list) => withQuery(list, { [limit]: pageSize }),
    read: (response) => {
      const rows = arrayAt(response.body, items)
      const next = fieldOf(response.body, nextField)
      if (next === undefined || next === null || next === '') return { rows }
      if (typeof next !== 'string') throw new PageShapeError(`"${nextField}" is not a string`)
      return { rows, next: withQuery(response.url, { [cursor]: next }) }
    }
  }
}

/** The whole list in one response: its length is the exact total. */
export function singlePaging (options: { readonly items?: string } = {}): UpstreamPaging {
  return {
    style: 'none',
    totals: 'exact',
    first: (list) => new URL(list),
    read: (response) => {
      const rows = arrayAt(response.body, options.items)
      return { rows, total: rows.length }
    }
  }
}
