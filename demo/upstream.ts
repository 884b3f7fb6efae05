// A stand-in for the upstream HTTP JSON APIs the gateway reads: one product list served in four
// paging styles, reservations of a product made by POST (acted on once per Idempotency-Key), with
// switches that make it slow, refuse, break or hang on demand, and a log of what it was asked. Tests, the benchmark and the README demo run it; docs/demo-upstream.md describes it.
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable, pipeline } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'

export type Availability = 'in_stock' | 'backorder' | 'discontinued'

/** One row of the upstream's product list, as it is served. */
export interface UpstreamProduct {
  sku: string
  internal_id: number
  name: string
  pricing: { amount_cents: number, currency: 'EUR' }
  /** An RFC 3339 instant in UTC, to the second. */
  listed_at: string
  availability: Availability
  warehouse_bin: string
}

/** Counters count the data requests still to get that fault; each request takes at most one. */
export interface FaultSwitches {
  /** Milliseconds every data response waits before it is sent. */
  latencyMs: number
  /** Answer with `failStatus` and a JSON error. */
  fail: number
  failStatus: number
  /** Answer 429 with `Retry-After: retryAfter` (seconds). */
  throttle: number
  retryAfter: number
  /** Destroy the socket without a response. */
  reset: number
  /** Answer as usual with the body's last character cut off, so it is not JSON. */
  malformed: number
  /** Answer as usual with each row's `pricing.amount_cents` as a string. */
  mismatch: number
  /** Never answer, until the upstream closes. */
  hang: number
}

export interface LoggedRequest {
  readonly method: string
  /** The request target: path and query. */
  readonly path: string
  readonly headers: IncomingHttpHeaders
}

/** The data requests received: everything but `/_faults`, faulted or refused ones included. */
export interface RequestLog {
  readonly count: number
  /** The latest REQUEST_LOG_SIZE, oldest first. */
  readonly recent: readonly LoggedRequest[]
  clear: () => void
}

export interface DemoUpstreamOptions {
  /** Products in the list (default 1000); rows are made when served, never held. */
  rows?: number
  host?: string
  /** 0 (the default) takes a free port. */
  port?: number
  /** When set, data requests need `Authorization: Bearer <token>`. */
  token?: string
}

export interface DemoUpstream {
  /** The origin, e.g. `http://127.0.0.1:4010`. */
  readonly url: string
  /** Read on every request: change them at will. */
  readonly faults: FaultSwitches
  readonly requests: RequestLog
  /** Stops listening and destroys every open socket, hung requests included. */
  close: () => Promise<void>
}

export const REQUEST_LOG_SIZE = 100

/** Where the demo upstream listens when run as a process (`npm run demo`, upstream-server.ts). */
export const DEMO_UPSTREAM_PORT = 4010
export const DEMO_UPSTREAM_URL = `http://127.0.0.1:${DEMO_UPSTREAM_PORT}`

/** `UPSTREAM_PORT` as the port to listen on: DEMO_UPSTREAM_PORT when unset; a RangeError unless a port number. */
export function demoUpstreamPort (value: string | undefined): number {
  if (value === undefined) return DEMO_UPSTREAM_PORT
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new RangeError(`UPSTREAM_PORT must be a port number, not "${value}".`)
  return Number(value)
}

export const FAULT_DEFAULTS: Readonly<FaultSwitches> = { latencyMs: 0, fail: 0, failStatus: 503, throttle: 0, retryAfter: 1, reset: 0, malformed: 0, mismatch: 0, hang: 0 }

/**
 * When several counters are set, a request takes the first in this order: faults of the connection
 * (reset, hang) come before the refusals of whatever stands in front of the service (429 before
 * 503), which come before a damaged answer (malformed before mismatch). Only that counter drops.
 */
export const FAULT_PRECEDENCE = ['reset', 'hang', 'throttle', 'fail', 'malformed', 'mismatch'] as const

type Fault = typeof FAULT_PRECEDENCE[number]

/** Listens, then resolves with the running upstream; its switches start at FAULT_DEFAULTS. */
export async function startDemoUpstream (options: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const rows = options.rows ?? 1000
  if (!Number.isSafeInteger(rows) || rows < 0) throw new RangeError(`rows must be a whole number, not ${rows}.`)
  const faults: FaultSwitches = { ...FAULT_DEFAULTS }
  const { log, record } = requestLog()
  const stopping = new AbortController()
  const reservations: Reservations = { made: 0, byKey: new Map() }
  const server = createServer((request, response) => {
    serve(request, response, { rows, token: options.token, faults, record, stopping: stopping.signal, reservations })
  })
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1')
  await once(server, 'listening')
  let closing: Promise<void> | undefined
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`,
    faults,
    requests: log,
    close: async () => await (closing ??= shutDown())
  }

  async function shutDown (): Promise<void> {
    stopping.abort()
    const closed = once(server, 'close')
    server.close()
    server.closeAllConnections()
    await closed
  }
}

/** Product `i` (1-based): every field follows from `i`, so any row can be made on its own. */
export function productAt (i: number): UpstreamProduct {
  if (!Number.isSafeInteger(i) || i < 1) throw new RangeError(`A product index is a whole number from 1, not ${i}.`)
  return {
    sku: skuOf(i),
    internal_id: i,
    name: `${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[i % NOUNS.length]} ${i}`,
    pricing: { amount_cents: ((i * 7919) % 49_900) + 100, currency: 'EUR' },
    listed_at: new Date(FIRST_LISTED + i * HOUR_MS).toISOString().replace('.000Z', 'Z'),
    availability: AVAILABILITY[i % AVAILABILITY.length],
    warehouse_bin: `${'ABCDEF'[i % 6]}-${String((i % 40) + 1).padStart(2, '0')}-${(i % 5) + 1}`
  }
}

const ADJECTIVES = ['Sturdy', 'Compact', 'Classic', 'Deluxe', 'Rugged', 'Slim', 'Quiet', 'Bright']
const NOUNS = ['Kettle', 'Lamp', 'Backpack', 'Toaster', 'Stool', 'Umbrella', 'Notebook', 'Blender', 'Thermos', 'Clock', 'Skillet']
const AVAILABILITY: readonly Availability[] = ['discontinued', 'in_stock', 'in_stock', 'backorder', 'in_stock', 'in_stock', 'in_stock', 'backorder', 'in_stock', 'in_stock']
const FIRST_LISTED = Date.UTC(2026, 0, 1)
const HOUR_MS = 3600 * 1000

function skuOf (i: number): string {
  return `SKU-${String(i).padStart(5, '0')}`
}

/** A reservation of a product, as `POST /products/{sku}/reservations` answers it. */
export interface UpstreamReservation {
  reservation_id: string
  sku: string
  quantity: number
  /** An RFC 3339 instant in UTC, to the second. */
  reserved_at: string
}

/** The reservations made, and the answer each Idempotency-Key was given (with the body it came with). */
interface Reservations {
  made: number
  readonly byKey: Map<string, { readonly body: string, readonly answer: Answer }>
}

interface Context {
  readonly rows: number
  readonly token: string | undefined
  readonly faults: FaultSwitches
  readonly record: (request: IncomingMessage) => void
  readonly stopping: AbortSignal
  readonly reservations: Reservations
}

/** What a request is answered: the body as JSON text in chunks, so a long list is never one string. */
interface Answer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly chunks: Iterable<string>
}

async function serve (request: IncomingMessage, response: ServerResponse, context: Context): Promise<void> {
  const url = URL.canParse(request.url!, 'http://upstream') ? new URL(request.url!, 'http://upstream') : undefined
  if (url?.pathname === '/_faults') return await serveFaults(request, response, context.faults)
  context.record(request)
  // Taken on arrival, so "the next N requests" follow the order requests arrive in.
  const fault = FAULT_PRECEDENCE.find((name) => context.faults[name] > 0)
  if (fault !== undefined) context.faults[fault]--
  if (fault === 'hang') return
  if (context.faults.latencyMs > 0) {
    try {
      await sleep(context.faults.latencyMs, undefined, { signal: context.stopping })
    } catch {
      return // closed meanwhile: the socket is gone
    }
  }
  if (fault === 'reset') {
    request.socket.destroy()
    return
  }
  const sku = request.method === 'POST' && url !== undefined ? RESERVATIONS.exec(url.pathname)?.[1] : undefined
  const refused = refusedFirst(request, url, context, fault)
  if (sku !== undefined && refused === undefined) {
    send(response, await reserve(request, sku, context, fault), fault === 'malformed')
    return
  }
  send(response, refused ?? answer(request, url as URL, context, fault), fault === 'malformed')
}

/** What refuses any request before its route: an injected refusal, a missing token, a target that is no URL. */
function refusedFirst (request: IncomingMessage, url: URL | undefined, context: Context, fault: Fault | undefined): Answer | undefined {
  if (fault === 'throttle') return refusal(429, 'Too many requests (an injected fault): retry after the time in Retry-After.', { 'retry-after': String(context.faults.retryAfter) })
  if (fault === 'fail') return refusal(context.faults.failStatus, 'The upstream failed (an injected fault).')
  if (context.token !== undefined && request.headers.authorization !== `Bearer ${context.token}`) {
    return refusal(401, 'Send the upstream token as "Authorization: Bearer <token>".', { 'www-authenticate': 'Bearer' })
  }
  return url === undefined ? refusal(400, 'The request target is not a URL.') : undefined
}

/** Where a product's reservations are made. */
const RESERVATIONS = /^\/products\/([^/]+)\/reservations$/

/**
 * A reservation of `sku`: `{ "quantity": 1..1000 }`, answered 201 with the reservation. A request
 * with an Idempotency-Key already answered is answered the same again (a 422 with another body); a
 * discontinued product is a 409, an unknown one a 404.
 */
async function reserve (request: IncomingMessage, sku: string, context: Context, fault: Fault | undefined): Promise<Answer> {
  const body = await bodyOf(request)
  // Node joins a header sent twice into one value.
  const key = request.headers['idempotency-key'] as string | undefined
  const earlier = key === undefined ? undefined : context.reservations.byKey.get(key)
  if (earlier !== undefined) return earlier.body === body ? earlier.answer : refusal(422, 'This Idempotency-Key was sent with another body.')
  let quantity: unknown
  try {
    quantity = (JSON.parse(body) as { quantity?: unknown } | null)?.quantity
  } catch {
    return refusal(400, 'The body is not JSON.')
  }
  if (!Number.isSafeInteger(quantity) || (quantity as number) < 1 || (quantity as number) > 1000) return refusal(400, 'Send { "quantity": <1 to 1000> }.')
  const i = productIndex(sku, context.rows)
  if (i === undefined) return refusal(404, `No product has the SKU "${sku}".`)
  if (productAt(i).availability === 'discontinued') return refusal(409, 'A discontinued product cannot be reserved.')
  const made = ++context.reservations.made
  const reservation: UpstreamReservation = { reservation_id: `RES-${String(made).padStart(6, '0')}`, sku, quantity: quantity as number, reserved_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }
  // The mismatch fault: a field of the wrong type, as for the list's rows.
  const answered: Answer = { status: 201, chunks: [JSON.stringify(fault === 'mismatch' ? { ...reservation, quantity: String(quantity) } : reservation)] }
  if (key !== undefined) context.reservations.byKey.set(key, { body, answer: answered })
  return answered
}

function answer (request: IncomingMessage, url: URL, context: Context, fault: Fault | undefined): Answer {
  const route = routeOf(url.pathname)
  if (route === undefined) return refusal(404, `Nothing is served at ${url.pathname}.`)
  if (request.method !== 'GET') return refusal(405, `${url.pathname} answers GET only.`, { allow: 'GET' })
  const values: Record<string, number> = {}
  for (const [name, parameter] of Object.entries(route.parameters)) {
    const raw = url.searchParams.get(name)
    const value = raw === null ? parameter.fallback : parameter.read(raw)
    if (value === undefined) return refusal(400, `The query parameter "${name}" ${parameter.expects}, not "${raw}".`)
    values[name] = value
  }
  const rowAt = fault === 'mismatch' ? mismatchedAt : productAt
  // A request without `Host` (HTTP/1.0) is linked to the address it reached.
  const host = request.headers.host ?? `${request.socket.localAddress}:${request.socket.localPort}`
  return route.answer(values, { rows: context.rows, rowAt, origin: `http://${host}` })
}

interface Parameter {
  readonly fallback: number
  /** The value, or undefined when `raw` is not one. */
  readonly read: (raw: string) => number | undefined
  readonly expects: string
}

interface ListContext {
  readonly rows: number
  readonly rowAt: (i: number) => unknown
  /** The origin the request was sent to, for links. */
  readonly origin: string
}

interface Route {
  readonly parameters: Readonly<Record<string, Parameter>>
  readonly answer: (values: Readonly<Record<string, number>>, list: ListContext) => Answer
}

/** The most rows one request pages to: more is served at this, as GitHub does. */
const CEILING = 100
const OFFSET = { fallback: 0, read: wholeFrom(0), expects: 'is a whole number from 0' }
const CURSOR = { fallback: 0, read: readCursor, expects: 'is a cursor this upstream handed out' }

const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  ['/page/products', { parameters: { page: { fallback: 1, read: wholeFrom(1), expects: 'is a whole number from 1' }, per_page: limitOf(30) }, answer: numberedPage }],
  ['/offset/products', { parameters: { offset: OFFSET, limit: limitOf(25) }, answer: offsetList }],
  ['/offset-body/products', { parameters: { offset: OFFSET, limit: limitOf(25) }, answer: offsetEnvelope }],
  ['/cursor/products', { parameters: { cursor: CURSOR, limit: limitOf(20) }, answer: cursorPage }],
  ['/all/products', { parameters: {}, answer: wholeList }]
])

function limitOf (fallback: number): Parameter {
  return { fallback, read: wholeFrom(1, CEILING), expects: 'is a whole number from 1' }
}

function routeOf (pathname: string): Route | undefined {
  const sku = /^\/products\/([^/]+)$/.exec(pathname)?.[1]
  return sku === undefined ? ROUTES.get(pathname) : { parameters: {}, answer: (_, list) => oneProduct(sku, list) }
}

/** GitHub's style: a bare array, and a `Link` header the only way to learn where the list ends. */
function numberedPage ({ page, per_page: perPage }: Readonly<Record<string, number>>, list: ListContext): Answer {
  const last = Math.max(1, Math.ceil(list.rows / perPage))
  const link = (to: number, rel: string): string => `<${list.origin}/page/products?page=${to}&per_page=${perPage}>; rel="${rel}"`
  const links = [page < last ? link(page + 1, 'next') : '', page > 1 ? link(page - 1, 'prev') : '', link(1, 'first'), link(last, 'last')]
  const first = (page - 1) * perPage + 1
  return { status: 200, headers: { link: links.filter(Boolean).join(', ') }, chunks: jsonRows(first, Math.min(list.rows, first + perPage - 1), list.rowAt) }
}

function wholeList (_: unknown, list: ListContext): Answer {
  return { status: 200, chunks: jsonRows(1, list.rows, list.rowAt) }
}

function offsetList ({ offset, limit }: Readonly<Record<string, number>>, list: ListContext): Answer {
  return { status: 200, headers: { 'x-total-count': String(list.rows) }, chunks: jsonRows(offset + 1, Math.min(list.rows, offset + limit), list.rowAt) }
}

function offsetEnvelope ({ offset, limit }: Readonly<Record<string, number>>, list: ListContext): Answer {
  return { status: 200, chunks: wrapped(`{"total":${list.rows},"results":`, jsonRows(offset + 1, Math.min(list.rows, offset + limit), list.rowAt), '}') }
}

function cursorPage ({ cursor: after, limit }: Readonly<Record<string, number>>, list: ListContext): Answer {
  const last = Math.min(list.rows, after + limit)
  const next = last < list.rows ? cursorOf(last) : null
  return { status: 200, chunks: wrapped('{"data":', jsonRows(after + 1, last, list.rowAt), `,"next_cursor":${JSON.stringify(next)}}`) }
}

function oneProduct (sku: string, list: ListContext): Answer {
  const i = productIndex(sku, list.rows)
  if (i !== undefined) return { status: 200, chunks: [JSON.stringify(list.rowAt(i))] }
  return refusal(404, `No product has the SKU "${sku}".`)
}

/** The index of the product `sku` names, when one of the `rows` has it. */
function productIndex (sku: string, rows: number): number | undefined {
  const i = Number(/^SKU-(\d+)$/.exec(sku)?.[1])
  return i >= 1 && i <= rows && skuOf(i) === sku ? i : undefined
}

/** A cursor is the position of the last row served, as base64url JSON: opaque, and checkable. */
function cursorOf (after: number): string {
  return Buffer.from(JSON.stringify({ after })).toString('base64url')
}

function readCursor (raw: string): number | undefined {
  let after: unknown
  try {
    after = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')).after
  } catch {
    return undefined
  }
  // Only a cursor this upstream could have made: re-encoding it gives back the same text.
  return Number.isSafeInteger(after) && (after as number) >= 0 && cursorOf(after as number) === raw ? after as number : undefined
}

/** Reads a whole number of at least `min`, served at `max` when larger. */
function wholeFrom (min: number, max = Number.MAX_SAFE_INTEGER): (raw: string) => number | undefined {
  return (raw) => {
    const value = /^\d{1,15}$/.test(raw) ? Number(raw) : -1
    return value < min ? undefined : Math.min(value, max)
  }
}

/** The rows `first` to `last` (1-based, inclusive) as a JSON array, a few hundred rows a chunk. */
function * jsonRows (first: number, last: number, rowAt: (i: number) => unknown): Generator<string> {
  yield '['
  for (let start = first; start <= last; start += CHUNK_ROWS) {
    const rows: string[] = []
    for (let i = start; i <= Math.min(last, start + CHUNK_ROWS - 1); i++) rows.push(JSON.stringify(rowAt(i)))
    yield (start === first ? '' : ',') + rows.join(',')
  }
  yield ']'
}

const CHUNK_ROWS = 256

function * wrapped (before: string, inner: Iterable<string>, after: string): Generator<string> {
  yield before
  yield * inner
  yield after
}

function mismatchedAt (i: number): unknown {
  const product = productAt(i)
  return { ...product, pricing: { ...product.pricing, amount_cents: String(product.pricing.amount_cents) } }
}

function refusal (status: number, error: string, headers: Record<string, string> = {}): Answer {
  return { status, headers, chunks: [JSON.stringify({ error })] }
}

function send (response: ServerResponse, { status, headers, chunks }: Answer, malformed = false): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
  // A client that leaves mid-list ends the stream: nothing to report.
  pipeline(Readable.from(malformed ? cutShort(chunks) : chunks), response, () => {})
}

/** The same text less its last character: every body here ends in `]` or `}`, so it stops being JSON. */
function * cutShort (chunks: Iterable<string>): Generator<string> {
  let held: string | undefined
  for (const chunk of chunks) {
    if (held !== undefined) yield held
    held = chunk
  }
  yield held!.slice(0, -1)
}

/** `GET /_faults` reads the switches, `PUT /_faults` merges a JSON object into them. */
async function serveFaults (request: IncomingMessage, response: ServerResponse, faults: FaultSwitches): Promise<void> {
  if (request.method === 'GET') return send(response, { status: 200, chunks: [JSON.stringify(faults)] })
  if (request.method !== 'PUT') return send(response, refusal(405, '/_faults answers GET and PUT only.', { allow: 'GET, PUT' }))
  const problem = mergeFaults(faults, await bodyOf(request))
  send(response, problem === undefined ? { status: 200, chunks: [JSON.stringify(faults)] } : refusal(400, problem))
}

/** Merges all of `text` or, with the reason, none of it. */
function mergeFaults (faults: FaultSwitches, text: string): string | undefined {
  let changes: unknown
  try {
    changes = JSON.parse(text)
  } catch {
    return 'The body is not JSON: send an object such as {"fail": 2}.'
  }
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes)) return 'The body is not a JSON object: send one such as {"fail": 2}.'
  for (const [name, value] of Object.entries(changes)) {
    if (!Object.hasOwn(FAULT_DEFAULTS, name)) return `There is no switch "${name}": the switches are ${Object.keys(FAULT_DEFAULTS).join(', ')}.`
    const [min, max] = name === 'failStatus' ? [400, 599] : [0, Number.MAX_SAFE_INTEGER]
    if (!Number.isSafeInteger(value) || value < min || value > max) return `The switch "${name}" takes a whole number from ${min} to ${max}.`
  }
  Object.assign(faults, changes)
}

/** The request's body; a client that leaves mid-body leaves it unanswered (no error is raised). */
async function bodyOf (request: IncomingMessage): Promise<string> {
  return await new Promise((resolve) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => { body += chunk })
    request.on('end', () => { resolve(body) })
  })
}

function requestLog (): { log: RequestLog, record: (request: IncomingMessage) => void } {
  const recent: LoggedRequest[] = []
  const log = { count: 0, recent, clear: () => { log.count = 0; recent.length = 0 } }
  const record = (request: IncomingMessage): void => {
    log.count++
    recent.push({ method: request.method!, path: request.url!, headers: { ...request.headers } })
    if (recent.length > REQUEST_LOG_SIZE) recent.shift()
  }
  return { log, record }
}
