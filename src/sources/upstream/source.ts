// An upstream HTTP API as a source: a list read a window at a time (agents) or walked page by page
// (plain clients), a record fetched by its arguments. It is given everything it reads from: the
// upstream's client, how the upstream pages, the record its rows must match, where fields are.
import { invalidArguments, problem, type ProblemCode } from '../../core/errors.js'
import type { RecordDeclaration } from '../../declare/index.js'
import { validators, type Validators } from '../../core/validators.js'
import type { Condition, ConditionOp, ReadContext, RecordSource, SourceLog, WindowRead, WindowSource } from '../source.js'
import type { UpstreamClient } from './client.js'
import { PageShapeError, type UpstreamPage, type UpstreamPaging } from './paging.js'
import { rowReader, type FieldPaths, type RowReader, type RowReaders } from './rows.js'
import { walk } from './walk.js'

/** What reading an upstream can end in, as each route reading one publishes. */
export const UPSTREAM_PROBLEMS: readonly ProblemCode[] = ['AG_UPSTREAM_FAILED', 'AG_UPSTREAM_UNREACHABLE', 'AG_UPSTREAM_UNAVAILABLE', 'AG_UPSTREAM_TIMEOUT']

/** The most rows a plain list walks unless its mount says otherwise. */
export const DEFAULT_MAX_ROWS = 10_000

interface UpstreamBase<Args, Row> {
  /** The upstream's client: its origin, credentials, timeouts, retries, breaker and cap. */
  readonly client: UpstreamClient
  /** The record the rows are served as: every row is checked against its schema before it is. */
  readonly declaration: RecordDeclaration<Row>
  /** The path on the upstream, with the arguments in it (`upstreamPath` fills a template, each argument one segment). */
  readonly path: string | ((args: Args) => string)
  /** Where declared fields are in the upstream's item, where the names differ (`price: 'pricing.amount_cents'`). */
  readonly fields?: FieldPaths
  /**
   * The app's checks (`app.validators`), which compile the row check, so that it goes with the app;
   * absent, the source has a set of its own.
   */
  readonly validators?: Validators
  /**
   * Where what the upstream got wrong is told (a row that does not match, a page of the wrong
   * shape, a failed call) when a read is given no log of its own (`ReadContext.log`, the
   * request's); default: nowhere.
   */
  readonly log?: SourceLog
}

/**
 * The upstream's own query parameter for each filter it applies, by field and comparison:
 * `{ status: { equals: 'state' }, price: { min: 'price_gte', max: 'price_lte' } }`.
 */
export type UpstreamFilters = Readonly<Record<string, Readonly<Partial<Record<ConditionOp, string>>>>>

export interface UpstreamListOptions<Args, Row> extends UpstreamBase<Args, Row> {
  readonly paging: UpstreamPaging
  /** The filters the upstream applies itself, each sent as its own query parameter; a mount may declare only these. */
  readonly filters?: UpstreamFilters
  /**
   * The most rows a plain list walks (default 10,000), and how deep a list that can only be walked
   * from its start (a cursor's, a single array's) is read for an agent. Past it a plain list is cut
   * (the client sees the body end without its closing bracket, and it is logged): never truncated.
   */
  readonly maxRows?: number
}

export interface UpstreamRecordOptions<Args, Row> extends UpstreamBase<Args, Row> {
  /** The body's field holding the record, when it is wrapped (default: the body is the record). */
  readonly item?: string
}

/** A list of an upstream API, paged as `paging` says. */
export function upstreamList<Args, Row> (options: UpstreamListOptions<Args, Row>): WindowSource<Args, Row> {
  const { client, paging } = options
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS
  if (!Number.isSafeInteger(maxRows) || maxRows < 1) throw new RangeError(`maxRows must be a positive integer; got ${maxRows}.`)
  const readers = readersOf(options)
  const located = locate(options)
  const filters = options.filters ?? {}
  const listOf = (args: Args, where: readonly Condition[] = []): URL => withConditions(located(args), where, filters)
  const fetchPage = async (url: URL, context: ReadContext | undefined, signal?: AbortSignal): Promise<UpstreamPage> => {
    const log = logOf(context, options)
    const response = await client.get(url, { signal, requestId: context?.requestId, log })
    // Without `notFound: 'absent'` the client answers every response, or throws.
    const { body, headers } = response as NonNullable<typeof response>
    try {
      return aligned(paging.read({ url, headers, body }), paging)
    } catch (error) {
      if (!(error instanceof PageShapeError)) throw error
      log?.warn({ origin: client.origin, path: url.pathname, style: paging.style, problem: error.message }, 'upstream page is not the shape its paging style promises')
      throw problem('AG_UPSTREAM_FAILED', `The upstream at ${client.origin} answered a page that is not the shape its paging promises.`)
    }
  }
  /** The reader of the page at `url`, read for `context`. */
  const readerAt = (context: ReadContext | undefined) => (url: URL): RowReader => readers({ url, log: logOf(context, options) })
  return {
    totals: paging.totals,
    problems: UPSTREAM_PROBLEMS,
    canFilter: (field, op) => filters[field]?.[op] !== undefined,
    window: async (args, offset, limit, where, context) => {
      const list = listOf(args, where)
      const start = paging.at?.(list, offset)
      if (start === undefined && offset >= maxRows) {
        throw invalidArguments({ offset: [`This list is read from its start, and only its first ${maxRows} rows are served: send an offset below ${maxRows}.`] })
      }
      return await windowOf(start ?? { url: paging.first(list), start: 0 }, offset, start === undefined ? Math.min(limit, maxRows - offset) : limit, async (url) => await fetchPage(url, context), readerAt(context)) as WindowRead<Row>
    },
    stream: (args, where, context) => walk({ first: paging.first(listOf(args, where)), maxRows, fetchPage: async (url, signal) => await fetchPage(url, context, signal), read: readerAt(context), origin: client.origin, after: paging.after }) as AsyncIterable<Row[]>
  }
}

/** A record of an upstream API; a 404 from the upstream is no such record. */
export function upstreamRecord<Args, Row> (options: UpstreamRecordOptions<Args, Row>): RecordSource<Args, Row> {
  const readers = readersOf(options)
  const recordOf = locate(options)
  return {
    problems: UPSTREAM_PROBLEMS,
    one: async (args, context) => {
      const url = recordOf(args)
      const log = logOf(context, options)
      const response = await options.client.get(url, { notFound: 'absent', requestId: context?.requestId, log })
      if (response === undefined) return undefined
      return readers({ url, log })(options.item === undefined ? response.body : (response.body as Record<string, unknown> | null)?.[options.item]) as Row
    }
  }
}

function readersOf (options: Pick<UpstreamBase<never, any>, 'declaration' | 'fields' | 'client' | 'validators'>): RowReaders {
  return rowReader(options.declaration.schema, options.fields ?? {}, options.client, (options.validators ?? validators()).rows)
}

/** Where a read tells what went wrong: the request's log, which names it, else the source's. */
function logOf (context: ReadContext | undefined, options: Pick<UpstreamBase<never, any>, 'log'>): SourceLog | undefined {
  return context?.log ?? options.log
}

function locate<Args> (options: UpstreamBase<Args, any>): (args: Args) => URL {
  const { path, client } = options
  return (args) => new URL(typeof path === 'string' ? path : path(args), client.origin)
}

/** `list` with each condition as the upstream's own parameter (registration made sure it has one). */
function withConditions (list: URL, where: readonly Condition[], filters: UpstreamFilters): URL {
  for (const { field, op, value } of where) list.searchParams.append(filters[field][op] as string, String(value))
  return list
}

/**
 * The rows `[offset, offset + limit)`, from the page at `from` on, following the upstream's next
 * pages; only the window's rows are checked. More follow when the last page read holds rows past
 * the window, or names a next page.
 */
async function windowOf (from: { url: URL, start: number }, offset: number, limit: number, fetchPage: (url: URL) => Promise<UpstreamPage>, readerAt: (url: URL) => RowReader): Promise<WindowRead<unknown>> {
  const rows: unknown[] = []
  let position = from.start
  let url: URL | undefined = from.url
  let total: number | undefined
  let more = false
  while (url !== undefined && rows.length < limit) {
    const page: UpstreamPage = await fetchPage(url)
    const read = readerAt(url)
    total = page.total ?? total
    for (const item of page.rows) {
      if (position >= offset && rows.length < limit) rows.push(read(item))
      position++
    }
    more = position > offset + limit || page.next !== undefined
    url = page.next
  }
  return { rows, more, ...(total === undefined ? {} : { total }) }
}

/**
 * Pages of a numbered style are addressed by arithmetic, so each must hold exactly the size asked
 * for unless it is the last: one that does not would shift every row after it.
 */
function aligned (page: UpstreamPage, paging: UpstreamPaging): UpstreamPage {
  const { pageSize } = paging
  if (pageSize !== undefined && (page.rows.length > pageSize || (page.next !== undefined && page.rows.length !== pageSize))) {
    throw new PageShapeError(`a page holds ${page.rows.length} rows where ${pageSize} were asked for`)
  }
  return page
}
