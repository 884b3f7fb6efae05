// The plain walk's read-ahead on a scripted client that answers a turn of the event loop later, so
// several pages are in flight at once: rows served once and in order whatever is guessed, the end
// the upstream's own, guesses past it or beside it aborted, never served, and never more pages in
// flight than the bound.
import t, { type Test } from 'tap'
import Type from 'typebox'
import { problem } from '../../../../src/core/errors.js'
import { declareRecord, handle, label } from '../../../../src/declare/index.js'
import {
  cursorPaging, offsetPaging, pageLinkPaging, singlePaging, upstreamList,
  type UpstreamClient, type UpstreamPaging, type UpstreamResponse
} from '../../../../src/sources/upstream/index.js'
import { PAGES_IN_FLIGHT } from '../../../../src/sources/upstream/walk.js'

const ORIGIN = 'http://upstream.test'
const Item = declareRecord('Item', Type.Object({ id: handle(Type.Integer({ minimum: 1 })), name: label(Type.String()) }))

type Answer = Omit<UpstreamResponse, 'url' | 'status'>

interface Slow extends UpstreamClient {
  /** Every URL asked for, in order. */
  readonly asked: string[]
  /** The signal each URL was asked with (the latest, for a URL asked twice). */
  readonly signals: Map<string, AbortSignal | undefined>
  /** The most calls in flight at once, and those in flight now. */
  readonly flight: { now: number, most: number }
}

/** A client answering each URL as `answer` says (an Error fails the call) a turn later; an abort rejects at once. */
function slow (answer: (url: URL) => Answer | Error): Slow {
  const asked: string[] = []
  const signals = new Map<string, AbortSignal | undefined>()
  const flight = { now: 0, most: 0 }
  return {
    origin: ORIGIN,
    name: undefined,
    asked,
    signals,
    flight,
    // A read never sends: an action's call would be a defect of the source.
    send: async () => { throw new Error('a read sent a call') },
    get: async (target, options = {}) => {
      const url = new URL(target, ORIGIN)
      const { signal } = options
      asked.push(url.href)
      signals.set(url.href, signal)
      flight.most = Math.max(flight.most, ++flight.now)
      return await new Promise<UpstreamResponse>((resolve, reject) => {
        const onAbort = (): void => {
          flight.now--
          clearImmediate(turn)
          reject(signal?.reason)
        }
        const turn = setImmediate(() => {
          flight.now--
          signal?.removeEventListener('abort', onAbort)
          const answered = answer(url)
          if (answered instanceof Error) reject(answered)
          else resolve({ url, status: 200, ...answered })
        })
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    },
    close: async () => {}
  }
}

const items = (from: number, count: number) => Array.from({ length: Math.max(0, count) }, (_, i) => ({ id: from + i, name: `Item ${from + i}` }))
const ids = (rows: unknown[]) => rows.map((row) => (row as { id: number }).id)

/** Numbered pages of `size` over `rows` rows, GitHub's way; a page past the end holds rows nobody may serve. */
function numbered (rows: number, size: number, link = (page: number) => `</list?page=${page + 1}&per_page=${size}>; rel="next"`) {
  return (url: URL): Answer => {
    const page = Number(url.searchParams.get('page'))
    const last = Math.ceil(rows / size)
    if (page > last) return { headers: {}, body: items(1000 + page, size) }
    return { headers: page < last ? { link: link(page) } : {}, body: items((page - 1) * size + 1, Math.min(size, rows - (page - 1) * size)) }
  }
}

/** A source's batches, as the rows one after another. */
async function * rowsOf<T> (batches: AsyncIterable<readonly T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield * batch
}

async function walked (client: UpstreamClient, paging: UpstreamPaging, maxRows?: number): Promise<unknown[]> {
  const source = upstreamList({ client, declaration: Item, path: '/list', paging, ...(maxRows === undefined ? {} : { maxRows }) })
  const rows: unknown[] = []
  for await (const row of rowsOf(source.stream(undefined))) rows.push(row)
  return rows
}

function pageOf (t: Test, href: string): number {
  const page = new URL(href).searchParams.get('page')
  t.not(page, null, href)
  return Number(page)
}

t.test('every row once, in order, in every style; pages fetched ahead only where pages are numbered, within the bound', async (t) => {
  const styles: Array<[string, UpstreamPaging, (url: URL) => Answer, number]> = [
    ['page', pageLinkPaging({ pageSize: 2 }), numbered(7, 2), PAGES_IN_FLIGHT],
    ['offset', offsetPaging({ pageSize: 2, total: { header: 'X-Total-Count' } }), (url) => {
      const offset = Number(url.searchParams.get('offset'))
      return { headers: { 'x-total-count': '7' }, body: items(offset + 1, Math.min(2, 7 - offset)) }
    }, PAGES_IN_FLIGHT],
    ['cursor', cursorPaging({ pageSize: 2 }), (url) => {
      const after = Number(url.searchParams.get('cursor') ?? 0)
      return { headers: {}, body: { data: items(after + 1, Math.min(2, 7 - after)), next_cursor: after + 2 < 7 ? String(after + 2) : null } }
    }, 1],
    ['none', singlePaging(), () => ({ headers: {}, body: items(1, 7) }), 1]
  ]
  for (const [style, paging, answer, most] of styles) {
    const client = slow(answer)
    t.strictSame(ids(await walked(client, paging)), [1, 2, 3, 4, 5, 6, 7], style)
    t.equal(client.flight.most, most, `${style}: at most ${most} in flight`)
    t.equal(client.flight.now, 0, `${style}: nothing left in flight`)
  }
})

t.test('the end is the upstream\'s: pages fetched past it are aborted and never served', async (t) => {
  const client = slow(numbered(7, 2))
  t.strictSame(ids(await walked(client, pageLinkPaging({ pageSize: 2 }))), [1, 2, 3, 4, 5, 6, 7], 'the rows page 5 and 6 hold are not served')
  const past = client.asked.filter((href) => pageOf(t, href) > 4)
  t.strictSame(past.map((href) => pageOf(t, href)), [5, 6], 'guessed from page 4, the last')
  for (const href of past) t.equal(client.signals.get(href)?.aborted, true, `${href} aborted`)
  t.equal(new Set(client.asked).size, client.asked.length, 'no page asked for twice')
})

t.test('a page fetched ahead that fails cuts the walk where it is needed, and is not heard past the end', async (t) => {
  const failure = problem('AG_UPSTREAM_FAILED', 'The upstream answered with an error (HTTP 500).')
  const pages = numbered(9, 2)
  const failing = slow((url) => url.searchParams.get('page') === '3' ? failure : pages(url))
  const seen: number[] = []
  const source = upstreamList({ client: failing, declaration: Item, path: '/list', paging: pageLinkPaging({ pageSize: 2 }) })
  await t.rejects(async () => { for await (const row of rowsOf(source.stream(undefined))) seen.push((row as { id: number }).id) }, failure)
  t.strictSame(seen, [1, 2, 3, 4], 'the rows before the failed page')
  t.equal(failing.flight.now, 0, 'what was in flight beyond it was aborted')
  t.ok(failing.asked.some((href) => pageOf(t, href) === 4), 'page 4 had been fetched ahead of the failure')
  t.equal(failing.signals.get(failing.asked.find((href) => pageOf(t, href) === 4)!)?.aborted, true)

  const rows = numbered(7, 2)
  const beyond = slow((url) => Number(url.searchParams.get('page')) > 4 ? failure : rows(url))
  t.strictSame(ids(await walked(beyond, pageLinkPaging({ pageSize: 2 }))), [1, 2, 3, 4, 5, 6, 7], 'a failure past the end is nobody\'s')
})

t.test('a client leaving mid-walk aborts every page in flight', async (t) => {
  for (const leaveAfter of [1, 3]) {
    const client = slow(numbered(40, 2))
    const source = upstreamList({ client, declaration: Item, path: '/list', paging: pageLinkPaging({ pageSize: 2 }) })
    const seen: number[] = []
    for await (const row of rowsOf(source.stream(undefined))) {
      seen.push((row as { id: number }).id)
      if (seen.length === leaveAfter) break
    }
    t.strictSame(seen, Array.from({ length: leaveAfter }, (_, i) => i + 1))
    t.ok(client.asked.length > 1, `${client.asked.length} pages asked for`)
    t.equal(client.flight.now, 0, `left after ${leaveAfter} rows: nothing in flight`)
    t.ok(client.asked.slice(1).every((href) => client.signals.get(href)?.aborted === true), 'every page after the first aborted')
  }
})

t.test('past maxRows the walk fails after the rows it may serve, and aborts what it fetched ahead', async (t) => {
  const client = slow(numbered(40, 2))
  const seen: number[] = []
  const source = upstreamList({ client, declaration: Item, path: '/list', paging: pageLinkPaging({ pageSize: 2 }), maxRows: 5 })
  await t.rejects(async () => { for await (const row of rowsOf(source.stream(undefined))) seen.push((row as { id: number }).id) }, /passed the 5 rows it may walk: the response was cut/)
  t.strictSame(seen, [1, 2, 3, 4, 5])
  t.equal(client.flight.now, 0)
  t.ok(client.flight.most <= PAGES_IN_FLIGHT)
})

t.test('only the upstream\'s next is served: a guess it does not name is dropped, one it names in another order kept', async (t) => {
  // The upstream's links put the size first: the same pages, so nothing is asked for twice.
  const reordered = slow(numbered(7, 2, (page) => `</list?per_page=2&page=${page + 1}>; rel="next"`))
  t.strictSame(ids(await walked(reordered, pageLinkPaging({ pageSize: 2 }))), [1, 2, 3, 4, 5, 6, 7])
  t.equal(new Set(reordered.asked.map((href) => pageOf(t, href))).size, reordered.asked.length, 'each page asked for once')
  t.equal(reordered.flight.most, PAGES_IN_FLIGHT)

  // Page 2 names page 4 as its next: page 3, fetched ahead, is never served.
  const rows = numbered(9, 2)
  const skipping = slow((url) => {
    const answered = rows(url)
    return url.searchParams.get('page') === '2' ? { ...answered, headers: { link: '</list?page=4&per_page=2>; rel="next"' } } : answered
  })
  t.strictSame(ids(await walked(skipping, pageLinkPaging({ pageSize: 2 }))), [1, 2, 3, 4, 7, 8, 9])
  t.equal(skipping.signals.get(skipping.asked.find((href) => pageOf(t, href) === 3)!)?.aborted, true, 'the guess of page 3 aborted')

  // A next without a page number, or off the origin, is followed, and nothing guessed from it.
  const unnumbered = slow((url) => url.searchParams.has('token') ? { headers: {}, body: items(3, 1) } : { headers: { link: '</list?token=abc>; rel="next"' }, body: items(1, 2) })
  t.strictSame(ids(await walked(unnumbered, pageLinkPaging({ pageSize: 2 }))), [1, 2, 3])
  t.strictSame(unnumbered.asked, [`${ORIGIN}/list?page=1&per_page=2`, `${ORIGIN}/list?token=abc`])
  const elsewhere = slow((url) => url.origin === ORIGIN ? { headers: { link: '<http://elsewhere.test/list?page=2&per_page=2>; rel="next"' }, body: items(1, 2) } : { headers: {}, body: [] })
  await walked(elsewhere, pageLinkPaging({ pageSize: 2 }))
  t.strictSame(elsewhere.asked, [`${ORIGIN}/list?page=1&per_page=2`, 'http://elsewhere.test/list?page=2&per_page=2'], 'the link is asked for (a real client refuses it), and nothing guessed from it')
})

t.test('offset pages shorter than asked: the guesses miss, and every row still comes once, in order', async (t) => {
  // The upstream caps its pages at 3 rows, whatever is asked.
  const client = slow((url) => {
    const offset = Number(url.searchParams.get('offset'))
    return { headers: { 'x-total-count': '10' }, body: items(offset + 1, Math.min(3, 10 - offset)) }
  })
  t.strictSame(ids(await walked(client, offsetPaging({ pageSize: 5, total: { header: 'X-Total-Count' } }))), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  t.strictSame(client.asked.map((href) => Number(new URL(href).searchParams.get('offset'))), [0, 3, 8, 13, 6, 9], 'guessed from the second page, missed, then not again')
  t.equal(client.signals.get(client.asked[2])?.aborted, true)
  t.equal(client.flight.most, PAGES_IN_FLIGHT)
})
