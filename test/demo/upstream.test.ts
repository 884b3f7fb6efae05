// The demo upstream over real HTTP on 127.0.0.1: its rows, its four paging styles, its refusals,
// its fault switches and request log, and the process that runs it.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { get as httpGet } from 'node:http'
import { connect } from 'node:net'
import { createInterface } from 'node:readline'
import LinkHeader from 'http-link-header'
import t, { type Test } from 'tap'
import { DEMO_UPSTREAM_PORT, demoUpstreamPort, FAULT_DEFAULTS, REQUEST_LOG_SIZE, productAt, startDemoUpstream, type DemoUpstream, type DemoUpstreamOptions, type UpstreamProduct } from '../../demo/upstream.js'
import { codePath, NODE_ARGS, ROOT } from '../helpers/paths.js'
import { until } from '../helpers/until.js'

// Three tests start the upstream as a process: slow on a busy machine. Nothing here waits on a
// clock; this only bounds a hang.
t.setTimeout(180_000)

/** A fresh upstream, closed when the test ends. */
async function start (t: Test, options: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const upstream = await startDemoUpstream(options)
  t.teardown(() => upstream.close())
  return upstream
}

/** The products `first` to `last`, as the upstream serves them. */
function products (first: number, last: number): UpstreamProduct[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, k) => productAt(first + k))
}

async function getJson (url: string, init?: RequestInit): Promise<{ status: number, headers: Headers, body: any }> {
  const response = await fetch(url, init)
  return { status: response.status, headers: response.headers, body: await response.json() }
}

/** The switches as `GET /_faults` reports them: one round trip to the upstream. */
async function faultsOf (upstream: DemoUpstream): Promise<Record<string, number>> {
  return await (await fetch(`${upstream.url}/_faults`)).json() as Record<string, number>
}

/** Sends `text` on a raw socket and resolves with everything the upstream wrote before closing. */
async function raw (upstream: DemoUpstream, text: string): Promise<string> {
  const socket = connect(Number(new URL(upstream.url).port), '127.0.0.1')
  socket.setEncoding('utf8')
  let answer = ''
  socket.on('data', (chunk: string) => { answer += chunk })
  socket.end(text)
  await once(socket, 'close')
  return answer
}

t.test('rows follow from their index alone', async (t) => {
  t.strictSame(productAt(1), {
    sku: 'SKU-00001',
    internal_id: 1,
    name: 'Compact Lamp 1',
    pricing: { amount_cents: 8019, currency: 'EUR' },
    listed_at: '2026-01-01T01:00:00Z',
    availability: 'in_stock',
    warehouse_bin: 'B-02-2'
  })
  t.strictSame(productAt(777), productAt(777), 'the same index, the same row')
  t.equal(productAt(123456).sku, 'SKU-123456', 'padded to five digits, never cut')
  t.equal(productAt(48).listed_at, '2026-01-03T00:00:00Z', 'one hour per index')
  t.strictSame(new Set(products(1, 10).map((row) => row.availability)), new Set(['in_stock', 'backorder', 'discontinued']))
  t.ok(products(1, 1000).every((row) => Number.isInteger(row.pricing.amount_cents) && row.pricing.amount_cents > 0))
  for (const bad of [0, -1, 1.5, Number.NaN]) t.throws(() => productAt(bad), RangeError, `${bad} is no index`)
})

t.test('a row count that is not a whole number is refused', async (t) => {
  await t.rejects(startDemoUpstream({ rows: -1 }), RangeError)
  await t.rejects(startDemoUpstream({ rows: 2.5 }), RangeError)
})

t.test('page style: a bare array and Link headers, GitHub style, with no total', async (t) => {
  const upstream = await start(t)
  const first = await getJson(`${upstream.url}/page/products`)
  t.equal(first.status, 200)
  t.strictSame(first.body, products(1, 30), 'page 1 of 30 rows by default')
  t.equal(first.headers.get('x-total-count'), null)
  const links = LinkHeader.parse(first.headers.get('link')!)
  t.strictSame(links.refs.map((ref) => [ref.rel, ref.uri]), [
    ['next', `${upstream.url}/page/products?page=2&per_page=30`],
    ['first', `${upstream.url}/page/products?page=1&per_page=30`],
    ['last', `${upstream.url}/page/products?page=34&per_page=30`]
  ], 'no prev on page 1')
  const middle = LinkHeader.parse((await fetch(`${upstream.url}/page/products?page=5&per_page=30`)).headers.get('link')!)
  t.strictSame(middle.refs.map((ref) => ref.rel), ['next', 'prev', 'first', 'last'])
  t.equal(middle.rel('prev')[0].uri, `${upstream.url}/page/products?page=4&per_page=30`)
  const last = await getJson(`${upstream.url}/page/products?page=34`)
  t.strictSame(last.body, products(991, 1000))
  t.notOk(LinkHeader.parse(last.headers.get('link')!).has('rel', 'next'), 'no next on the last page')
  const past = await getJson(`${upstream.url}/page/products?page=99`)
  t.strictSame(past.body, [])
  t.notOk(LinkHeader.parse(past.headers.get('link')!).has('rel', 'next'), 'no next past the end')
})

t.test('page style: following next visits every row once; per_page over 100 is served at 100', async (t) => {
  const upstream = await start(t, { rows: 250 })
  const seen: UpstreamProduct[] = []
  let next: string | undefined = `${upstream.url}/page/products?per_page=500`
  while (next !== undefined) {
    const page = await getJson(next)
    t.ok(page.body.length <= 100)
    seen.push(...page.body)
    next = LinkHeader.parse(page.headers.get('link')!).rel('next')[0]?.uri
  }
  t.strictSame(seen, products(1, 250))
  t.strictSame(upstream.requests.recent.map((request) => request.path), [
    '/page/products?per_page=500', '/page/products?page=2&per_page=100', '/page/products?page=3&per_page=100'
  ], 'the clamped per_page is kept in the links')
})

t.test('page style: links point at the Host the request was sent to', async (t) => {
  const upstream = await start(t)
  const { port } = new URL(upstream.url)
  const request = httpGet({ host: '127.0.0.1', port, path: '/page/products', headers: { host: 'gateway.example:9000' } })
  const [response] = await once(request, 'response')
  response.resume()
  t.match(response.headers.link, /^<http:\/\/gateway\.example:9000\/page\/products\?page=2&per_page=30>; rel="next"/)
  // HTTP/1.0 may leave Host out: the links then name the address the request reached.
  const answer = await raw(upstream, 'GET /page/products HTTP/1.0\r\n\r\n')
  t.match(answer, `link: <http://127.0.0.1:${port}/page/products?page=2&per_page=30>; rel="next"`)
})

t.test('offset style: a bare array and X-Total-Count', async (t) => {
  const upstream = await start(t)
  const first = await getJson(`${upstream.url}/offset/products`)
  t.strictSame(first.body, products(1, 25), '25 rows by default')
  t.equal(first.headers.get('x-total-count'), '1000')
  t.strictSame((await getJson(`${upstream.url}/offset/products?offset=990&limit=20`)).body, products(991, 1000))
  t.equal((await getJson(`${upstream.url}/offset/products?limit=1000`)).body.length, 100, 'limit over 100 is served at 100')
  t.strictSame((await getJson(`${upstream.url}/offset/products?offset=1000`)).body, [])
})

t.test('offset style with the total in the body', async (t) => {
  const upstream = await start(t)
  t.strictSame((await getJson(`${upstream.url}/offset-body/products`)).body, { total: 1000, results: products(1, 25) })
  t.strictSame((await getJson(`${upstream.url}/offset-body/products?offset=10&limit=2`)).body, { total: 1000, results: products(11, 12) })
  t.strictSame((await getJson(`${upstream.url}/offset-body/products?offset=5000`)).body, { total: 1000, results: [] })
})

t.test('cursor style: opaque cursors until next_cursor is null', async (t) => {
  const upstream = await start(t, { rows: 45 })
  const first = await getJson(`${upstream.url}/cursor/products`)
  t.strictSame(Object.keys(first.body), ['data', 'next_cursor'])
  t.strictSame(first.body.data, products(1, 20), '20 rows by default')
  t.notMatch(first.body.next_cursor, /^\d+$/, 'a cursor is not a bare position')
  const second = await getJson(`${upstream.url}/cursor/products?cursor=${first.body.next_cursor}&limit=500`)
  t.strictSame(second.body, { data: products(21, 45), next_cursor: null }, 'limit over 100 is served at 100')
})

t.test('the whole list as one array, written in chunks', async (t) => {
  const upstream = await start(t)
  const response = await fetch(`${upstream.url}/all/products`)
  t.equal(response.headers.get('transfer-encoding'), 'chunked')
  t.strictSame(await response.json(), products(1, 1000))
  const empty = await start(t, { rows: 0 })
  t.strictSame((await getJson(`${empty.url}/all/products`)).body, [])
  t.strictSame((await getJson(`${empty.url}/page/products`)).body, [])
})

t.test('a client that leaves mid-list does not disturb the upstream', async (t) => {
  const upstream = await start(t, { rows: 100_000 })
  const { port } = new URL(upstream.url)
  const request = httpGet({ host: '127.0.0.1', port, path: '/all/products' })
  const [response] = await once(request, 'response')
  await once(response, 'data')
  request.destroy()
  t.strictSame((await getJson(`${upstream.url}/products/SKU-99999`)).body, productAt(99_999))
})

t.test('one product by SKU', async (t) => {
  const upstream = await start(t)
  t.strictSame((await getJson(`${upstream.url}/products/SKU-00042`)).body, productAt(42))
  for (const sku of ['SKU-42', 'SKU-01001', 'SKU-00000', 'book-1']) {
    const missing = await getJson(`${upstream.url}/products/${sku}`)
    t.equal(missing.status, 404, sku)
    t.strictSame(missing.body, { error: `No product has the SKU "${sku}".` })
  }
})

t.test('unknown paths are 404, other methods 405, unparseable targets 400, all as JSON', async (t) => {
  const upstream = await start(t)
  for (const path of ['/', '/products', '/products/SKU-00001/more', '/page/products/', '/_faults/x']) {
    const missing = await getJson(`${upstream.url}${path}`)
    t.equal(missing.status, 404, path)
    t.type(missing.body.error, 'string')
  }
  const posted = await fetch(`${upstream.url}/page/products`, { method: 'POST' })
  t.equal(posted.status, 405)
  t.equal(posted.headers.get('allow'), 'GET')
  t.match(await posted.json(), { error: /GET only/ })
  t.match(await raw(upstream, 'GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), /^HTTP\/1\.1 400 [^]*"error":"The request target is not a URL\."/)
})

t.test('query values that are not whole numbers in range are 400, naming the parameter', async (t) => {
  const upstream = await start(t)
  const cursor = (json: string): string => Buffer.from(json).toString('base64url')
  const bad = [
    ['/page/products?page=0', 'page'], ['/page/products?page=abc', 'page'], ['/page/products?page=', 'page'],
    ['/page/products?per_page=0', 'per_page'], ['/page/products?page=1234567890123456', 'page'],
    ['/offset/products?offset=-1', 'offset'], ['/offset-body/products?limit=1.5', 'limit'],
    ['/cursor/products?cursor=%%%', 'cursor'], ['/cursor/products?cursor=', 'cursor'],
    [`/cursor/products?cursor=${cursor('{"after":"5"}')}`, 'cursor'], [`/cursor/products?cursor=${cursor('{"after":-5}')}`, 'cursor'],
    [`/cursor/products?cursor=${cursor('{ "after": 5 }')}`, 'cursor'], [`/cursor/products?cursor=${cursor('null')}`, 'cursor']
  ]
  for (const [path, name] of bad) {
    const answer = await getJson(`${upstream.url}${path}`)
    t.equal(answer.status, 400, path)
    t.match(answer.body.error, `The query parameter "${name}"`, path)
  }
  t.equal((await fetch(`${upstream.url}/cursor/products?cursor=${cursor('{"after":5}')}`)).status, 200, 'a cursor the upstream could have made')
})

t.test('with a token, data requests need it as a bearer credential; /_faults does not', async (t) => {
  const upstream = await start(t, { token: 's3cret' })
  for (const authorization of [undefined, 'Bearer wrong', 's3cret']) {
    const refused = await getJson(`${upstream.url}/all/products`, { headers: authorization === undefined ? {} : { authorization } })
    t.equal(refused.status, 401, String(authorization))
    t.equal(refused.headers.get('www-authenticate'), 'Bearer')
    t.type(refused.body.error, 'string')
  }
  t.equal((await fetch(`${upstream.url}/products/SKU-00001`, { headers: { authorization: 'Bearer s3cret' } })).status, 200)
  t.equal((await fetch(`${upstream.url}/_faults`)).status, 200)
})

t.test('latency delays every data response by at least latencyMs', async (t) => {
  const upstream = await start(t)
  upstream.faults.latencyMs = 60
  for (const path of ['/offset/products', '/nowhere']) {
    const started = performance.now()
    await (await fetch(`${upstream.url}${path}`)).arrayBuffer()
    // libuv keeps its clock in whole milliseconds, so a timer may fire up to 1 ms early.
    t.ok(performance.now() - started >= 59, path)
  }
  upstream.faults.latencyMs = 3_600_000
  t.equal((await fetch(`${upstream.url}/_faults`)).status, 200, '/_faults is never delayed')
})

t.test('fail answers 503, or failStatus, for the next N data requests', async (t) => {
  const upstream = await start(t)
  upstream.faults.fail = 2
  const failed = await getJson(`${upstream.url}/offset/products`)
  t.equal(failed.status, 503)
  t.strictSame(failed.body, { error: 'The upstream failed (an injected fault).' })
  upstream.faults.failStatus = 500
  t.equal((await fetch(`${upstream.url}/offset/products`)).status, 500)
  t.equal(upstream.faults.fail, 0)
  t.equal((await fetch(`${upstream.url}/offset/products`)).status, 200)
})

t.test('throttle answers 429 with Retry-After for the next N data requests', async (t) => {
  const upstream = await start(t)
  Object.assign(upstream.faults, { throttle: 2, retryAfter: 7 })
  for (let n = 0; n < 2; n++) {
    const throttled = await getJson(`${upstream.url}/cursor/products`)
    t.equal(throttled.status, 429)
    t.equal(throttled.headers.get('retry-after'), '7')
    t.match(throttled.body, { error: /Retry-After/ })
  }
  t.equal((await fetch(`${upstream.url}/cursor/products`)).status, 200)
})

t.test('reset destroys the socket without a response', async (t) => {
  const upstream = await start(t)
  upstream.faults.reset = 1
  await t.rejects(fetch(`${upstream.url}/page/products`), TypeError)
  t.equal(upstream.faults.reset, 0)
  t.equal((await fetch(`${upstream.url}/page/products`)).status, 200)
})

t.test('malformed answers 200 with the usual body cut short', async (t) => {
  const upstream = await start(t)
  for (const path of ['/offset-body/products?limit=3', '/all/products']) {
    upstream.faults.malformed = 1
    const response = await fetch(`${upstream.url}${path}`)
    t.equal(response.status, 200)
    const text = await response.text()
    t.throws(() => JSON.parse(text), SyntaxError, path)
    const whole = await (await fetch(`${upstream.url}${path}`)).text()
    t.ok(whole.length > 1 && text === whole.slice(0, -1), 'only the last character is missing')
  }
})

t.test('mismatch serves amount_cents as a string for the next N data requests', async (t) => {
  const upstream = await start(t)
  upstream.faults.mismatch = 2
  const [row] = (await getJson(`${upstream.url}/page/products?per_page=1`)).body
  t.strictSame(row, { ...productAt(1), pricing: { amount_cents: '8019', currency: 'EUR' } })
  t.equal((await getJson(`${upstream.url}/products/SKU-00002`)).body.pricing.amount_cents, String(productAt(2).pricing.amount_cents))
  t.strictSame((await getJson(`${upstream.url}/products/SKU-00002`)).body, productAt(2))
})

t.test('when several switches are set, each request takes one fault, in the documented order', async (t) => {
  const upstream = await start(t)
  Object.assign(upstream.faults, { reset: 1, hang: 1, throttle: 1, fail: 1, malformed: 1, mismatch: 1 })
  await t.rejects(fetch(`${upstream.url}/all/products`), TypeError, 'reset first')
  const hung = fetch(`${upstream.url}/all/products`).then(() => 'answered', () => 'cut')
  await until(async () => (await faultsOf(upstream)).hang === 0, 'the upstream holds the request')
  t.equal((await fetch(`${upstream.url}/all/products`)).status, 429)
  t.equal((await fetch(`${upstream.url}/all/products`)).status, 503)
  await t.rejects((await fetch(`${upstream.url}/all/products`)).json(), SyntaxError)
  t.type((await getJson(`${upstream.url}/products/SKU-00003`)).body.pricing.amount_cents, 'string')
  t.strictSame((await getJson(`${upstream.url}/products/SKU-00003`)).body, productAt(3))
  await upstream.close()
  t.equal(await hung, 'cut', 'the held request ends when the upstream closes')
})

t.test('close does not wait for hung or delayed requests, and may be called twice', async (t) => {
  const upstream = await start(t)
  upstream.faults.hang = 1
  const hung = fetch(`${upstream.url}/page/products`).then(() => 'answered', () => 'cut')
  upstream.faults.latencyMs = 3_600_000
  const delayed = fetch(`${upstream.url}/page/products`).then(() => 'answered', () => 'cut')
  await until(async () => { await faultsOf(upstream); return upstream.requests.count === 2 }, 'both requests arrive')
  await upstream.close()
  await upstream.close()
  t.strictSame(await Promise.all([hung, delayed]), ['cut', 'cut'])
})

t.test('GET /_faults reads the switches; PUT merges a JSON object into them, all or nothing', async (t) => {
  const upstream = await start(t)
  t.strictSame(await faultsOf(upstream), FAULT_DEFAULTS)
  const put = async (body: string): Promise<{ status: number, body: any }> => {
    const { status, body: answer } = await getJson(`${upstream.url}/_faults`, { method: 'PUT', body })
    return { status, body: answer }
  }
  const merged = await put('{"fail": 2, "failStatus": 502}')
  t.strictSame(merged, { status: 200, body: { ...FAULT_DEFAULTS, fail: 2, failStatus: 502 } })
  t.equal(upstream.faults.fail, 2, 'the same switches the object exposes')
  for (const [body, error] of [
    ['{"fail": 1', /not JSON/], ['[1]', /not a JSON object/], ['null', /not a JSON object/], ['3', /not a JSON object/],
    ['{"latencyMs": 5, "explode": 1}', /no switch "explode"/], ['{"latencyMs": -1}', /"latencyMs" takes a whole number from 0/],
    ['{"fail": 1.5}', /"fail"/], ['{"fail": "1"}', /"fail"/], ['{"failStatus": 200}', /from 400 to 599/], ['{"failStatus": 600}', /from 400 to 599/]
  ] as const) {
    const refused = await put(body)
    t.equal(refused.status, 400, body)
    t.match(refused.body.error, error, body)
  }
  t.strictSame(await faultsOf(upstream), { ...FAULT_DEFAULTS, fail: 2, failStatus: 502 }, 'a refused change changes nothing')
  const deleted = await fetch(`${upstream.url}/_faults`, { method: 'DELETE' })
  t.equal(deleted.status, 405)
  t.equal(deleted.headers.get('allow'), 'GET, PUT')
  t.equal(upstream.faults.fail, 2, '/_faults is never faulted')
  t.equal(upstream.requests.count, 0, 'nor logged')
})

t.test('the request log: every data request, the latest 100 with their headers, and clear()', async (t) => {
  const upstream = await start(t)
  await fetch(`${upstream.url}/page/products?page=2`, { headers: { authorization: 'Bearer caller', 'x-trace': 'abc' } })
  await fetch(`${upstream.url}/nowhere`, { method: 'POST' })
  t.equal(upstream.requests.count, 2)
  t.match(upstream.requests.recent, [
    { method: 'GET', path: '/page/products?page=2', headers: { authorization: 'Bearer caller', 'x-trace': 'abc' } },
    { method: 'POST', path: '/nowhere' }
  ])
  upstream.requests.clear()
  t.equal(upstream.requests.count, 0)
  t.strictSame(upstream.requests.recent, [])
  for (let n = 1; n <= REQUEST_LOG_SIZE + 1; n++) await (await fetch(`${upstream.url}/products/SKU-${String(n).padStart(5, '0')}`)).arrayBuffer()
  t.equal(upstream.requests.count, REQUEST_LOG_SIZE + 1)
  t.equal(upstream.requests.recent.length, REQUEST_LOG_SIZE)
  t.equal(upstream.requests.recent[0].path, '/products/SKU-00002', 'the oldest is dropped first')
})

t.test('the process: configured from the environment, closed by SIGTERM', async (t) => {
  const child = spawn(process.execPath, [...NODE_ARGS, codePath('demo/upstream-server')], {
    cwd: ROOT,
    env: { ...process.env, UPSTREAM_PORT: '0', UPSTREAM_ROWS: undefined, UPSTREAM_HOST: undefined, UPSTREAM_TOKEN: 'tok' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  const exited = once(child, 'exit')
  const [line] = await Promise.race([once(createInterface({ input: child.stdout! }), 'line'), exited.then(([code]) => { throw new Error(`exited with ${code}`) })])
  const url = /^demo upstream listening at (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)![1]
  t.equal((await fetch(`${url}/offset/products`)).status, 401, 'the token is required')
  const answer = await fetch(`${url}/offset/products`, { headers: { authorization: 'Bearer tok' } })
  t.equal(answer.headers.get('x-total-count'), '1000', '1000 rows by default')
  await answer.arrayBuffer()
  child.kill('SIGTERM')
  t.strictSame(await exited, [0, null])
})

t.test('the process refuses a variable that is not a whole number', async (t) => {
  const child = spawn(process.execPath, [...NODE_ARGS, codePath('demo/upstream-server')], {
    cwd: ROOT,
    env: { ...process.env, UPSTREAM_PORT: '0', UPSTREAM_ROWS: 'many', UPSTREAM_TOKEN: '' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.strictSame(await once(child, 'exit'), [1, null])
  t.equal(stderr, 'UPSTREAM_ROWS must be a whole number, not "many".\n')
})

t.test('UPSTREAM_PORT: 4010 when unset, a port number, or a refusal naming it', async (t) => {
  t.equal(demoUpstreamPort(undefined), DEMO_UPSTREAM_PORT)
  t.equal(demoUpstreamPort('0'), 0)
  t.equal(demoUpstreamPort('65535'), 65535)
  for (const bad of ['65536', '-1', 'x', '']) t.throws(() => demoUpstreamPort(bad), new RangeError(`UPSTREAM_PORT must be a port number, not "${bad}".`))
})

t.test('the process refuses a port that is not one', async (t) => {
  const child = spawn(process.execPath, [...NODE_ARGS, codePath('demo/upstream-server')], {
    cwd: ROOT,
    env: { ...process.env, UPSTREAM_ROWS: '5', UPSTREAM_PORT: '99999' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.strictSame(await once(child, 'exit'), [1, null])
  t.equal(stderr, 'UPSTREAM_PORT must be a port number, not "99999".\n')
})
