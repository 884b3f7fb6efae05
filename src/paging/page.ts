// The page style (the source document's envelope): page and limit clamped at both ends and the
// clamp reported by serving it.
import Type from 'typebox'
import { pageEnvelope, pageEnvelopeSchema } from './envelope.js'
import type { PagingStyle, Window } from './style.js'

export const DEFAULT_PAGE_LIMIT = 100

export interface PageWindow extends Window {
  readonly page: number
  readonly totalPages: number
}

export interface PageStyleOptions {
  /** The mount's ceiling on `limit`; it bounds the default too. */
  maxPageSize: number
  defaultLimit?: number
}

export function pageStyle (options: PageStyleOptions): PagingStyle<PageWindow> {
  const { maxPageSize, defaultLimit = DEFAULT_PAGE_LIMIT } = options
  if (!Number.isInteger(maxPageSize) || maxPageSize < 1) throw new RangeError(`maxPageSize must be a positive integer; got ${maxPageSize}.`)
  return {
    parameters: {
      page: Type.Optional(Type.Integer({ description: 'Agents only. The page to serve, from 1; clamped to the pages that exist.', default: 1 })),
      limit: Type.Optional(Type.Integer({
        description: `Agents only. Items per page, clamped to 1..${maxPageSize}.`,
        default: Math.min(defaultLimit, maxPageSize)
      }))
    },
    window: (query, total) => pageWindow(query.page, query.limit, total, maxPageSize, defaultLimit),
    envelope: pageEnvelope,
    schema: pageEnvelopeSchema
  }
}

/** Clamps `limit` to [1, max], counts pages at that limit, then clamps `page` to [1, totalPages]. */
export function pageWindow (page: number | undefined, limit: number | undefined, total: number, maxPageSize: number, defaultLimit = DEFAULT_PAGE_LIMIT): PageWindow {
  const size = clamp(limit ?? defaultLimit, 1, maxPageSize)
  const totalPages = Math.max(1, Math.ceil(total / size))
  const served = clamp(page ?? 1, 1, totalPages)
  return { page: served, totalPages, limit: size, offset: (served - 1) * size }
}

function clamp (value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max)
}
