// Clients that ask for a long plain list and stop reading cannot starve the others: a list waits
// for a SQLite reader a bounded time, then gets a 503 problem with Retry-After; and a list whose
// client has not read for a bounded time is cut (no final chunk), its reader given back, and logged.
import { EventEmitter, once } from 'node:events'
import { request, Agent, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { AppOptions } from '../../src/app.js'
import { seedLongShelf } from '../fixtures/long-shelf.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

// Seeding the shelf is slow on a busy machine.
t.setTimeout(120_000)

const file = join(t.testdir(), 'long-shelf.sqlite')
await seedLongShelf(file)

/** Two readers, so two clients that stop reading hold them all. */
const READERS = 2

interface Listening {
  get: (path: string, headers: Record<string, string>) => Promise<IncomingMessage>
  /** Emits each warning the app logs, as 'warn'. */
  warnings: EventEmitter
}

async function listen (t: Test, options: Partial<AppOptions>): Promise<Listening> {
  const { app } = await buildApp(t, { databaseUrl: file, maxReaders: READERS, ...options })
  const warnings = new EventEmitter()
  // Requests log through children of the app's logger, which the test app makes silent: heard here.
  app.log.warn = ((_detail: unknown, message: string) => { warnings.emit('warn', message) }) as typeof app.log.warn
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const agent = new Agent()
  t.teardown(() => { agent.destroy() })
  return {
    warnings,
    get: async (path, headers) => {
      const req = request({ host: '127.0.0.1', port, path, headers, agent: new Agent() })
      req.end()
      return (await once(req, 'response') as [IncomingMessage])[0]
    }
  }
}

/** A client that reads the first chunk of the whole plain list, then stops reading. */
async function stopsReading (server: Listening): Promise<IncomingMessage> {
  const res = await server.get('/books', AUTH)
  await once(res, 'data')
  res.pause()
  return res
}

/** Resolves once `message` has been logged `times` times. */
async function logged (warnings: EventEmitter, message: string, times: number): Promise<void> {
  let seen = 0
  await new Promise<void>((resolve) => {
    warnings.on('warn', (said: string) => { if (said === message && ++seen === times) resolve() })
  })
}

async function body (res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of res) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString()
}

t.test('with every reader held by a client that does not read, a list gets a 503 with Retry-After within the bound', async (t) => {
  const server = await listen(t, { acquireTimeoutMs: 200, stallMs: 600_000 })
  const held = await Promise.all(Array.from({ length: READERS }, async () => await stopsReading(server)))
  t.teardown(() => { for (const res of held) res.destroy() })
  const refused = await server.get('/books', AUTH)
  t.equal(refused.statusCode, 503)
  t.equal(refused.headers['retry-after'], '5')
  t.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8')
  t.match(JSON.parse(await body(refused)), { type: 'urn:audience-gateway:problem:store-unavailable', status: 503 })
  const page = await server.get('/books?limit=2', AGENT)
  t.equal(page.statusCode, 200, 'pages read on the store\'s own connection go on')
  await body(page)
})

t.test('a list whose client has not read for the bound is cut without its final chunk, and its reader is given back', async (t) => {
  const server = await listen(t, { acquireTimeoutMs: 60_000, stallMs: 200 })
  const cuts = logged(server.warnings, 'cut a streamed list whose client stopped reading', READERS)
  const stalled = await Promise.all(Array.from({ length: READERS }, async () => await stopsReading(server)))
  await cuts
  t.pass('each cut is logged')
  // Read on: what was sent before the cut arrives, then the connection's end, without the final chunk.
  const ends = stalled.map(async (res) => {
    const aborted = once(res, 'error')
    res.resume()
    return await aborted
  })
  for (const [error] of await Promise.all(ends)) t.match(error, { code: 'ECONNRESET', message: 'aborted' }, 'the client can tell the list was cut: no final chunk')
  for (const res of stalled) t.notOk(res.complete)
  const whole = await server.get('/books', AUTH)
  t.equal(whole.statusCode, 200)
  const books = JSON.parse(await body(whole)) as unknown[]
  t.equal(books.length, 200_003, 'a reader came free: the next list is read whole')
})
