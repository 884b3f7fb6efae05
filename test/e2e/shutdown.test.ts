// SIGTERM on the real process: a drain (readiness 503, everything else served with `Connection:
// close`), then the listener and idle sockets closed while the request in flight finishes, exit 0;
// or, when the grace period ends first, the list cut and exit 1.
import { once } from 'node:events'
import { request, Agent, type IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { EXTRA_BOOKS, seedLongShelf } from '../fixtures/long-shelf.js'
import { startServer } from '../helpers/server.js'
import { until } from '../helpers/until.js'

// Seeding the shelf and starting the server through the TypeScript loader are slow on a busy
// machine: past tap's default 30 s per file.
t.setTimeout(240_000)

const KEY = 'shutdown-key-0123456789abcdef'

const file = join(t.testdir(), 'catalogue.sqlite')
await seedLongShelf(file)

t.test('SIGTERM drains first: readiness 503 at once, everything else still served with Connection: close', async (t) => {
  const server = await startServer({ API_KEYS: KEY, DATABASE_URL: file, SHUTDOWN_DRAIN_SECONDS: '600' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const { hostname, port } = new URL(server.url)
  const pool = new Agent({ keepAlive: true })
  t.teardown(() => pool.destroy())
  await drain(await get(hostname, port, '/healthz', pool))

  server.child.kill('SIGTERM')
  t.match(await server.logged(/^draining/), { drainSeconds: 600 })
  const ready = await get(hostname, port, '/readyz', new Agent())
  t.equal(ready.statusCode, 503, 'readiness says so at once, on a new connection: the listener still accepts')
  t.equal(ready.headers.connection, 'close')
  t.match(JSON.parse(await text(ready)), { type: 'urn:audience-gateway:problem:shutting-down', status: 503 })
  const page = await get(hostname, port, '/books?limit=1', pool, { 'x-audience': 'agent' })
  t.equal(page.statusCode, 200, 'a request on a kept-alive socket is served')
  t.equal(page.headers.connection, 'close', 'and its client told to reconnect (elsewhere, once the balancer has seen the 503)')
  t.match(JSON.parse(await text(page)), { items: [{ id: 1 }] })
  const fresh = await get(hostname, port, '/books/1', new Agent())
  t.equal(fresh.statusCode, 200, 'a new connection is served')
  t.equal(fresh.headers.connection, 'close')
  await drain(fresh)

  server.child.kill('SIGTERM')
  t.equal(await server.exited, 1, 'a second signal exits 1 at once')
  t.ok(await server.logged(/^second SIGTERM, exiting$/))
})

t.test('after the drain: the listener closes, idle sockets too, the request in flight finishes, and the process exits 0', async (t) => {
  // The list's client pauses for as long as the test takes, however busy the machine: never cut for
  // it here, neither as stalled nor by the grace period (its end is the next test's subject).
  const server = await startServer({ API_KEYS: KEY, DATABASE_URL: file, SHUTDOWN_DRAIN_SECONDS: '1', SHUTDOWN_GRACE_SECONDS: '600', STREAM_STALL_SECONDS: '600' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const { hostname, port } = new URL(server.url)

  // An idle keep-alive connection, as a client pool leaves one.
  const pool = new Agent({ keepAlive: true })
  t.teardown(() => pool.destroy())
  const warm = await get(hostname, port, '/healthz', pool)
  const idle = warm.socket
  await drain(warm)

  // The whole plain list, read by a client that stops after its first chunk.
  const slow = await get(hostname, port, '/books', new Agent())
  t.equal(slow.statusCode, 200)
  const chunks: Buffer[] = []
  slow.on('data', (chunk: Buffer) => chunks.push(chunk))
  await once(slow, 'data')
  slow.pause()
  // The list holds no connection others need: a readiness probe, a read of the store, is answered.
  const probe = await get(hostname, port, '/readyz', new Agent())
  t.equal(probe.statusCode, 200, 'the store answers others while the list waits for its reader')
  await drain(probe)
  t.notOk(completed(server.logs, '/books'), 'the list is still in flight')

  const idleClosed = idle.destroyed ? Promise.resolve() : once(idle, 'close')
  server.child.kill('SIGTERM')
  t.match(await server.logged(/^closing/), { inFlight: 1 }, 'the drain over, the list is the one request in flight')
  await idleClosed
  t.pass('the idle keep-alive connection is closed')
  // The listener closes a few turns of the server's event loop after the log line, once its accept
  // queue is empty (a connection made meanwhile is accepted): no event tells, so it is tried.
  await until(refused(hostname, Number(port)), 'a new connection is refused')
  t.pass('a new connection is refused')
  t.notOk(completed(server.logs, '/books'), 'the list is still in flight while the server refuses others')
  t.equal(server.child.exitCode, null, 'the process waits for it')

  slow.resume()
  await once(slow, 'end')
  const books = JSON.parse(Buffer.concat(chunks).toString()) as Array<{ id: number }>
  t.equal(books.length, 3 + EXTRA_BOOKS, 'the list arrived whole')
  t.equal(books.at(-1)?.id, 3 + EXTRA_BOOKS)
  t.equal(await server.exited, 0)
  t.ok(completed(server.logs, '/books'), 'and was logged as completed')
})

t.test('a list still streaming when the grace period ends is cut, without its final chunk, and the process exits 1', async (t) => {
  const server = await startServer({ API_KEYS: KEY, DATABASE_URL: file, SHUTDOWN_DRAIN_SECONDS: '0', SHUTDOWN_GRACE_SECONDS: '1', STREAM_STALL_SECONDS: '600' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const { hostname, port } = new URL(server.url)
  const slow = await get(hostname, port, '/books', new Agent())
  await once(slow, 'data')
  slow.pause()

  server.child.kill('SIGTERM')
  t.equal(await server.exited, 1)
  t.match(await server.logged(/^the grace period is over/), { cut: 1, level: 50 }, 'the cut is logged as an error, with how many were cut')
  const aborted = once(slow, 'error')
  slow.resume()
  t.match((await aborted)[0], { code: 'ECONNRESET', message: 'aborted' }, 'the client can tell: no final chunk')
  t.notOk(slow.complete)
})

async function get (hostname: string, port: string, path: string, agent: Agent, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  const req = request({ hostname, port, path, agent, headers: { authorization: `Bearer ${KEY}`, ...headers } })
  req.end()
  const [res] = await once(req, 'response') as [IncomingMessage]
  return res
}

async function text (res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of res) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString()
}

async function drain (res: IncomingMessage): Promise<void> {
  res.resume()
  await once(res, 'end')
}

function completed (logs: ReadonlyArray<Record<string, unknown>>, url: string): boolean {
  const ids = new Set(logs.filter((entry) => (entry.req as { url?: string } | undefined)?.url === url).map((entry) => entry.reqId))
  return logs.some((entry) => entry.msg === 'request completed' && ids.has(entry.reqId))
}

/** A check for `until`: whether a connection to the port is refused (rather than made, or reset). */
function refused (host: string, port: number): () => Promise<boolean> {
  return async () => {
    const socket = connect(port, host)
    const outcome = await new Promise<string>((resolve) => {
      socket.once('connect', () => { resolve('connected') })
      socket.once('error', (error: NodeJS.ErrnoException) => { resolve(error.code ?? 'error') })
    })
    socket.destroy()
    return outcome === 'ECONNREFUSED'
  }
}
