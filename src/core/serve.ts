// The one flow every transport calls: from a compiled mount (resource.ts), an audience and
// validated arguments to what to send. It knows nothing of HTTP or any other transport: a
// transport translates a request into a Call, and the Served value back into its own answer.
import type { Readable } from 'node:stream'
import type { PagingStyle, UncountedPaging } from '../paging/index.js'
import { projectPayload, type Projection } from '../projection/index.js'
import { isWindowSource, meetsEvery, type Condition, type ReadContext, type ListSource, type RecordSource, type TextSource, type WindowSource } from '../sources/index.js'
import { valueKey } from '../value-key.js'
import type { CheckedArguments, RawArguments } from './arguments.js'
import type { CompiledFilters } from './filters.js'
import type { CompiledRowRule } from './row-rule.js'
import type { Principal } from '../permissions.js'
import type { CompiledSort } from './sort.js'
import { problem } from './errors.js'
import { jsonArrayStream, type Whole } from './json-array.js'
import { frozenWhole, type KeptAnswers } from './served-cache.js'
import { pathOf, type ServedBytes } from './serve-bytes.js'
import { inSpan, inSpanSync, startSpan } from './spans.js'

/** One call, as a transport received it: who reads, the query and the path parameters, unchecked. */
export interface Call extends RawArguments, ReadContext {
  /** Who calls, as the transport authenticated them: a row rule reads its claims. */
  readonly principal?: Principal
  /** True when the caller already holds the plain list a validator names (HTTP: If-None-Match). */
  readonly holds?: (tag: string) => boolean
  /** Told how many rows were served once they are (a stream's when it ends), and whether the window was clamped: metrics. */
  readonly onRows?: (rows: number, clamped: boolean) => void
}

/**
 * What to send: a JSON value, a bare JSON array streamed a batch of rows at a time or kept whole
 * (with its validator, when the source has one), that the caller's copy is current, a whole text, or content
 * to send as bytes.
 */
export type Served =
  | { readonly kind: 'json', readonly body: unknown }
  | { readonly kind: 'json-array', readonly body: Readable | Buffer, readonly tag?: string }
  | { readonly kind: 'unchanged', readonly body: null, readonly tag: string }
  | { readonly kind: 'text', readonly body: string }
  | ServedBytes

/** What every flow needs first: the call's arguments checked (or the 400 naming each wrong one). */
interface Checked {
  readonly check: (call: Call) => CheckedArguments
}

/** What every flow of a record declaration needs, prepared once at registration. */
interface RecordPlan extends Checked {
  /** Stored row -> presented record (JSON values, affordances answered). */
  readonly present: (row: any) => Record<string, unknown>
  readonly projection: Projection
  /** The conditions the caller's identity sets on the rows it may read (row-rule.ts). */
  readonly rowRule: CompiledRowRule
}

export interface ListPlan extends RecordPlan {
  readonly source: ListSource<any, any> | WindowSource<any, any>
  readonly style: PagingStyle
  /** Writes one presented row as the plain schema declares it. */
  readonly serializeRow: (row: unknown) => string
  /** Takes the filters' arguments off the checked ones, as conditions for the source. */
  readonly filters: CompiledFilters
  /** Takes the sort's argument off the rest, as the order for the source. */
  readonly sort: CompiledSort
  /** Names the plain schema: with the source's version, what a plain list's validator is made of. */
  readonly fingerprint: string
  /** Where answers are kept while the source's version names the same rows (served-cache.ts); absent, none are. */
  readonly kept?: KeptAnswers
}

export interface RecordPlanWithSource extends RecordPlan {
  readonly source: RecordSource<any, any>
}

export interface TextPlan extends Checked {
  readonly source: TextSource<any>
  readonly style: PagingStyle
  /** The route's path template (`/books/:id/text`), to name a missing text. */
  readonly url: string
}

/**
 * A plain client gets every row streamed; an agent gets a counted, clamped, projected page. Either
 * way the source applies the filters and the sort, so the count, the page and the stream are of the
 * same rows, in the same order.
 */
export async function serveList (plan: ListPlan, call: Call): Promise<Served> {
  const checked = plan.check(call)
  const { paging } = checked
  // The caller's own rows first: a caller without the claims its rows are read by is refused here.
  const ruled = plan.rowRule.where(call.principal)
  const filtered = plan.filters.split(checked.args)
  const { args, sort, sent: sorted } = plan.sort.split(filtered.args)
  const where = ruled.length === 0 ? filtered.where : [...ruled, ...filtered.where]
  // What the next page's hint tells to send again: the filters, then the sort.
  const sent = [...filtered.sent, ...sorted]
  const { source, projection, kept } = plan
  const presentAs = presenting(plan.present, ruled)
  // The name of the rows the call selects, read before they are: it may then name an older state
  // than the rows, never a newer one (a later request reads them again).
  const version = isWindowSource(source) ? undefined : source.version
  if (call.audience === 'plain') {
    const tag = version === undefined ? undefined : `${plan.fingerprint}-${await version(args, where, sort)}`
    if (tag !== undefined && call.holds?.(tag) === true) return { kind: 'unchanged', body: null, tag }
    // A source's version names the conditions too; a kept answer also names the caller's own, whatever the source.
    const keptAs = tag === undefined ? undefined : ruled.length === 0 ? tag : valueKey(tag, ruled)
    const list = keptAs === undefined ? undefined : kept?.get(keptAs)
    if (list?.kind === 'list') {
      call.onRows?.(list.rows, false)
      return { kind: 'json-array', body: list.bytes, tag }
    }
    // Kept from its second ask (served-cache.ts): the first is streamed without recording its bytes.
    const whole = keptAs === undefined || kept === undefined || !kept.wants(keptAs) ? undefined : { maxBytes: kept.maxEntryBytes, keep: (bytes: Buffer, rows: number) => { kept.set(keptAs, { kind: 'list', bytes, rows }) } }
    // Registration made sure a list read a window at a time is never sorted.
    const rows = isWindowSource(source) ? source.stream(args, where, call) : source.stream(args, where, call, sort)
    return { kind: 'json-array', body: await streamed(rows, (row) => plan.serializeRow(presentAs(row)), call.onRows, whole), tag }
  }
  const project = (rows: readonly unknown[]): unknown[] => inSpanSync('projection', () => projectPayload(rows.map(presentAs), projection) as unknown[])
  if (isWindowSource(source)) {
    // Registration made sure the style pages uncounted lists.
    const style = plan.style.uncounted as UncountedPaging
    const window = style.window(paging)
    const read = await inSpan('slice', () => source.window(args, window.offset, window.limit, where, call))
    return counted(call, read.rows.length, style.envelope(project(read.rows), repeating(window, sent), read))
  }
  // A page is its rows' name and the call's arguments (paging, and the filters and sort its hints repeat).
  const key = version === undefined || kept === undefined ? undefined : valueKey(await version(args, where), [checked.args, paging, ruled])
  const answer = key === undefined ? undefined : kept?.get(key)
  if (answer?.kind === 'page') return counted(call, answer.rows, answer.body)
  let rows = 0
  const body = await paged(plan.style, paging, {
    // Each the source's own promise, in its span: none made around it (the page's hot path).
    count: () => inSpan('count', () => source.count(args, where)),
    slice: (offset, limit) => inSpan('slice', () => source.slice(args, offset, limit, where, sort))
  }, (page) => {
    rows = page.length
    return project(page)
  }, sent)
  // Served to every later call of the same name, from its second ask: frozen whole, so no transport can change it for the next.
  if (key !== undefined && kept?.wants(key) === true) kept.set(key, { kind: 'page', body: frozenWhole(body), rows })
  return counted(call, rows, body)
}

/** One record: as presented to a plain client, projected for an agent. */
export async function serveRecord (plan: RecordPlanWithSource, call: Call): Promise<Served> {
  const { args, params } = plan.check(call)
  const ruled = plan.rowRule.where(call.principal)
  const row = await plan.source.one({ ...args, ...params }, call)
  // Another caller's record is answered as no record: the caller learns nothing of it, not even that it is.
  if (row === undefined || !meetsEvery(row, ruled)) throw problem('AG_NOT_FOUND', `No record matches ${describe(params)}.`)
  const presented = plan.present(row)
  call.onRows?.(1, false)
  return { kind: 'json', body: call.audience === 'agent' ? inSpanSync('projection', () => projectPayload(presented, plan.projection)) : presented }
}

/** A text: whole to a plain client, a window of lines to an agent. */
export async function serveText (plan: TextPlan, call: Call): Promise<Served> {
  // Checked before the text is read: a plain client's request is wrong whatever the text.
  const { paging, args, params } = plan.check(call)
  const lines = await plan.source.lines({ ...args, ...params })
  if (lines === undefined) throw problem('AG_NOT_FOUND', `No text at ${pathOf(plan.url, params)}.`)
  if (call.audience === 'plain') return { kind: 'text', body: wholeText(lines) }
  const body = await paged(plan.style, paging, {
    count: async () => lines.length,
    slice: async (offset, limit) => lines.slice(offset, offset + limit)
  }, (window) => window)
  return counted(call, 0, body)
}

/**
 * `present`, checking first that each row is the caller's: the source applied the row rule's
 * conditions, and a row that does not meet them is its defect, refused rather than served.
 */
function presenting (present: (row: any) => Record<string, unknown>, ruled: readonly Condition[]): (row: any) => Record<string, unknown> {
  if (ruled.length === 0) return present
  return (row) => {
    if (!meetsEvery(row, ruled)) throw new Error('The list\'s source served a row its row rule excludes: it must apply every condition it is given.')
    return present(row)
  }
}

/** An agent's envelope, its rows and clamp told to `onRows`. */
function counted (call: Call, rows: number, body: Record<string, unknown>): Served {
  call.onRows?.(rows, body.limit_clamped === true)
  return { kind: 'json', body }
}

/** What a paged flow reads: how many there are, then one window of them. */
interface Countable<Item> {
  count: () => Promise<number>
  slice: (offset: number, limit: number) => Promise<readonly Item[]>
}

/**
 * Count before slice: the window is clamped against the total, so a page past the end reads
 * nothing rather than an unbounded OFFSET; only the page's items are presented and projected.
 */
export async function paged<Item> (style: PagingStyle, paging: Readonly<Record<string, number | undefined>>, items: Countable<Item>, project: (page: readonly Item[]) => readonly unknown[], keep: readonly string[] = []): Promise<Record<string, unknown>> {
  const total = await items.count()
  const window = style.window(paging, total)
  const page = window.limit > 0 && window.offset < total ? await items.slice(window.offset, window.limit) : []
  return style.envelope(project(page), repeating(window, keep))
}

/**
 * `window` and the arguments its hints repeat. Assigned rather than spread: an object spread followed
 * by a property of its own costs V8 about a microsecond, and every page makes one.
 */
function repeating<W extends object> (window: W, keep: readonly string[]): W & { keep: readonly string[] } {
  return Object.assign({}, window, { keep })
}

/**
 * The plain list as a bare JSON array, streamed with a `stream` span that ends with the body, or
 * whole when it is shorter than a chunk (json-array.ts); the rows written are counted for
 * `onRows`, and the whole list handed to `whole` when it fits.
 */
async function streamed (rows: AsyncIterable<readonly unknown[]>, serialize: (row: unknown) => string, onRows: Call['onRows'], whole?: { maxBytes: number, keep: (bytes: Buffer, rows: number) => void }): Promise<Readable | Buffer> {
  let count = 0
  const kept: Whole | undefined = whole === undefined ? undefined : { maxLength: whole.maxBytes, keep: (text) => { whole.keep(Buffer.from(text), count) } }
  const body = await jsonArrayStream(rows, onRows === undefined && kept === undefined ? serialize : (row) => { count++; return serialize(row) }, kept)
  if (Buffer.isBuffer(body)) {
    onRows?.(count, false)
    return body
  }
  // From its first chunk to the body's end: a list answered whole has no stream, nor its span.
  const span = startSpan('stream')
  body.once('close', () => {
    span.end()
    onRows?.(count, false)
  })
  return body
}

/** POSIX text: every line ends with a line feed, so an empty text is an empty body. */
function wholeText (lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('')
}

/** A record named by its path parameters, as a 404 says it: `id 9`. */
export function describe (params: Readonly<Record<string, unknown>>): string {
  return Object.entries(params).map(([name, value]) => `${name} ${String(value)}`).join(', ')
}
