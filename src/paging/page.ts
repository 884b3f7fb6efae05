// The page style: `page` and `limit`, both clamped at both ends and the clamp reported by serving
// it; the envelope says which page was served, how many there are, and whether another follows.
import type { JsonSchema } from '../projection/index.js'
import { agentParameter, ASK_AS_AN_AGENT, positiveInteger, type PagingStyle, type Window } from './style.js'

export interface PageOptions {
  readonly style: 'page'
  /** The most items a page holds (default 100); two mounts of one declaration may differ. */
  readonly ceiling?: number
  /** Items per page when `limit` is not sent (default 100), bounded by the ceiling. */
  readonly defaultLimit?: number
}

export const PAGE_DEFAULTS = { ceiling: 100, defaultLimit: 100 } as const

export interface PageWindow extends Window {
  readonly page: number
  readonly totalPages: number
}

export function pageStyle (options: Omit<PageOptions, 'style'> = {}): PagingStyle<PageWindow> {
  const ceiling = positiveInteger('ceiling', options.ceiling ?? PAGE_DEFAULTS.ceiling)
  const defaultLimit = positiveInteger('defaultLimit', options.defaultLimit ?? PAGE_DEFAULTS.defaultLimit)
  return {
    parameters: {
      page: agentParameter('The page to serve, from 1; clamped to the pages that exist.', { default: 1 }),
      limit: agentParameter(`Items per page, clamped to 1..${ceiling}.`, { default: Math.min(defaultLimit, ceiling) })
    },
    agentsOnly: `Paging applies to agents only: a plain client gets the whole list. ${ASK_AS_AN_AGENT} to page.`,
    window: (query, total) => pageWindow(query.page, query.limit, total, ceiling, defaultLimit),
    envelope: pageEnvelope,
    schema: (item) => pageEnvelopeSchema(item, ceiling)
  }
}

/** Clamps `limit` to [1, ceiling], counts pages at that limit, then clamps `page` to [1, totalPages]. */
export function pageWindow (page: number | undefined, limit: number | undefined, total: number, ceiling: number, defaultLimit: number = PAGE_DEFAULTS.defaultLimit): PageWindow {
  const size = clamp(limit ?? defaultLimit, 1, ceiling)
  const totalPages = Math.max(1, Math.ceil(total / size))
  const served = clamp(page ?? 1, 1, totalPages)
  return { page: served, totalPages, limit: size, offset: (served - 1) * size }
}

export function pageEnvelope (items: readonly unknown[], window: Pick<PageWindow, 'page' | 'totalPages'>): Record<string, unknown> {
  return { items, page: window.page, totalPages: window.totalPages, hasNext: window.page < window.totalPages }
}

/** `ceiling` is published as the items' `maxItems`: a generated client can size for the largest page. */
export function pageEnvelopeSchema (item: JsonSchema, ceiling: number): JsonSchema {
  return {
    type: 'object',
    properties: {
      items: { type: 'array', items: item, maxItems: ceiling },
      page: { type: 'integer', description: 'The page actually served.' },
      totalPages: { type: 'integer', description: 'How many pages there are at the limit actually used.' },
      hasNext: { type: 'boolean', description: 'Whether a page follows this one.' }
    },
    required: ['items', 'page', 'totalPages', 'hasNext']
  }
}

function clamp (value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max)
}
