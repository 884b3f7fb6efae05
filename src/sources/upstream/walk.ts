// The plain walk of an upstream list: every row, page after page. The upstream makes a page in
// about the time the gateway takes to check and write one, so where a style can address pages by
// arithmetic, the pages after the next are fetched ahead, a bounded few. A page fetched ahead is a
// guess: it is served only once the upstream names it as the next page, and dropped otherwise.
import type { UpstreamPage } from './paging.js'
import type { RowReader } from './rows.js'

/** The most pages a walk has in flight: the one the upstream named as next, and those after it. */
export const PAGES_IN_FLIGHT = 3

export interface Walk {
  readonly first: URL
  /** The most rows served; one more is a failure. */
  readonly maxRows: number
  readonly fetchPage: (url: URL, signal: AbortSignal) => Promise<UpstreamPage>
  /** The reader of the rows of the page at a URL. */
  readonly read: (url: URL) => RowReader
  /** The upstream's origin: no page off it is fetched ahead. */
  readonly origin: string
  /** The page `pages` after the one at `url`, where the style addresses pages by arithmetic. */
  readonly after?: (url: URL, pages: number) => URL | undefined
}

/** One page asked for: its answer to come. */
interface Fetch {
  readonly url: URL
  readonly page: Promise<UpstreamPage>
  /** A page fetched ahead has a controller of its own: it may be dropped alone. */
  readonly guess?: AbortController
}

type Guess = Required<Fetch>

/**
 * Every row, a page at a time, each page checked whole before any of it is yielded, so a bad first page is a 502, not
 * a cut stream. The end is the upstream's: a page without a next ends the walk, and the pages
 * fetched beyond it are aborted, never served. Past `maxRows` the walk fails: the list is cut where
 * the client can see it, and the failure is logged. Once a guess misses, nothing more is guessed.
 */
export async function * walk (options: Walk): AsyncGenerator<unknown[]> {
  const { maxRows, fetchPage, read } = options
  const ended = new AbortController()
  let ahead = new Map<string, Guess>()
  let pending: Fetch | undefined = { url: options.first, page: unheard(fetchPage(options.first, ended.signal)) }
  let served = 0
  let guessing = true
  try {
    while (pending !== undefined) {
      const { url } = pending
      const page: UpstreamPage = await pending.page
      const next = page.next
      if (next === undefined) {
        pending = undefined
      } else {
        const key = keyOf(next)
        const guessed = ahead.get(key)
        ahead.delete(key)
        // A guess missed: the arithmetic does not hold for this upstream (pages shorter than asked,
        // say), and every later guess would miss too, doubling the calls made to it.
        guessing &&= guessed !== undefined || ahead.size === 0
        pending = guessed ?? { url: next, page: unheard(fetchPage(next, ended.signal)) }
      }
      ahead = aheadOf(guessing ? next : undefined, ahead, options)
      const rows = page.rows.map(read(url))
      // The rows up to the bound are served; one more is the failure.
      const allowed = Math.min(rows.length, maxRows - served)
      if (allowed > 0) {
        served += allowed
        yield allowed === rows.length ? rows : rows.slice(0, allowed)
      }
      if (allowed < rows.length) throw new Error(`The plain list of the upstream at ${options.origin} passed the ${maxRows} rows it may walk: the response was cut.`)
    }
  } finally {
    ended.abort()
    pending?.guess?.abort()
    for (const { guess } of ahead.values()) guess.abort()
  }
}

/**
 * The pages after `next` to have in flight, those already asked for kept; every other page fetched
 * ahead was a wrong guess (or lies past the end), and is aborted before any new one is asked for.
 */
function aheadOf (next: URL | undefined, previous: ReadonlyMap<string, Guess>, options: Walk): Map<string, Guess> {
  const wanted = new Map<string, URL>()
  const { after } = options
  if (next !== undefined && after !== undefined && next.origin === options.origin) {
    for (let pages = 1; pages < PAGES_IN_FLIGHT; pages++) {
      const url = after(next, pages)
      if (url === undefined) break
      wanted.set(keyOf(url), url)
    }
  }
  for (const [key, { guess }] of previous) if (!wanted.has(key)) guess.abort()
  const ahead = new Map<string, Guess>()
  for (const [key, url] of wanted) ahead.set(key, previous.get(key) ?? fetchAhead(url, options.fetchPage))
  return ahead
}

/** A page fetched ahead, with a signal of its own: it is dropped alone when the guess was wrong. */
function fetchAhead (url: URL, fetchPage: Walk['fetchPage']): Guess {
  const controller = new AbortController()
  return { url, page: unheard(fetchPage(url, controller.signal)), guess: controller }
}

/** A fetch that may never be awaited (the walk closed early, a guess dropped): its failure is nobody's to hear until it is. */
function unheard (page: Promise<UpstreamPage>): Promise<UpstreamPage> {
  page.catch(() => {})
  return page
}

/** A page's URL with its query in a canonical order: the upstream may order its links' parameters otherwise. */
function keyOf (url: URL): string {
  const query = new URLSearchParams(url.search)
  query.sort()
  return `${url.origin}${url.pathname}?${query.toString()}`
}
