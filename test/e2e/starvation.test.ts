// Clients that ask for a long plain list and stop reading cannot starve the others: a list waits
// for a reader a bounded time, then gets a 503 problem with Retry-After; a list whose client has not
// read for a bounded time is cut (no final chunk), its reader given back, and logged, sooner while
// another request waits for a reader; and one client (a key, an address) holds only so many readers
// at once, its next list refused with a 429 while other clients are served. On SQLite's readers and
// on PostgreSQL's pool.
import { EventEmitter, once } from 'node:events'
import { request, Agent, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import type { AppOptions } from '../../demo/app.js'
import { seedLongShelf } from '../fixtures/long-shelf.js'
import { AGENT, AUTH, buildApp, KEY } from '../helpers/app.js'
import { freshSchema, needs } from '../helpers/services.js'

// Seeding the shelf is slow on a busy machine.
t.setTimeout(180_000)

const file = join(t.testdir(), 'long-shelf.sqlite')
// As many ledger entries as books: the open route's list outgrows the socket buffers too.
await seedLongShelf(file, undefined, 200_000)

/** Two readers, so two clients that stop reading hold them all. */
const READERS = 2

/** A second key: another client than AUTH's. */
const OTHER_KEY = 'other-test-key-0123456789'
const OTHER = { authorization: `Bearer ${OTHER_KEY}` } as const

const CUT = 'cut a streamed list whose client stopped reading'
const CUT_FOR_ANOTHER = 'cut a streamed list whose client stopped reading while another request waited for a reader'

interface Listening {
  app: FastifyInstance
  /** GETs `path` from `localAddress` (127.0.0.1 unless told: any of 127/8 is this host's). */
  get: (path: string, headers: Record<string, string>, localAddress?: string) => Promise<IncomingMessage>
  /** Emits each warning the app logs, as 'warn'. */
  warnings: EventEmitter
}

async function listen (t: Test, options: Partial<AppOptions>): Promise<Listening> {
  const { app } = await buildApp(t, { databaseUrl: file, maxReaders: READERS, apiKeys: [KEY, OTHER_KEY], ...options })
  const warnings = new EventEmitter()
  // Requests log through children of the app's logger, which the test app makes silent: heard here.
  app.log.warn = ((_detail: unknown, message: string) => { warnings.emit('warn', message) }) as typeof app.log.warn
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return {
    app,
    warnings,
    get: async (path, headers, localAddress = '127.0.0.1') => {
      const req = request({ host: '127.0.0.1', port, path, headers, localAddress, agent: new Agent() })
      req.end()
      return (await once(req, 'response') as [IncomingMessage])[0]
    }
  }
}

/** A client that reads the first chunk of a long plain list, then stops reading. */
async function stopsReading (server: Listening, headers: Record<string, string> = AUTH, path = '/books', localAddress?: string): Promise<IncomingMessage> {
  const res = await server.get(path, headers, localAddress)
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${await body(res)}`)
  await once(res, 'data')
  res.pause()
  return res
}

/** Clients that stopped reading, destroyed when the test ends. */
async function stalled (t: Test, server: Listening, count: number, headers?: Record<string, string>, path?: string, localAddress?: string): Promise<IncomingMessage[]> {
  const held: IncomingMessage[] = []
  t.teardown(() => { for (const res of held) res.destroy() })
  for (let i = 0; i < count; i++) held.push(await stopsReading(server, headers, path, localAddress))
  return held
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

/** Asserts `res` is a client's refusal for holding its share of the readers. */
async function tooMany (t: Test, res: IncomingMessage): Promise<void> {
  t.equal(res.statusCode, 429)
  t.equal(res.headers['retry-after'], '5')
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
  t.match(JSON.parse(await body(res)), { type: 'urn:audience-gateway:problem:too-many-streams', status: 429, detail: /already streaming 2 whole lists/ })
}

/** Asserts `res` is a list being served: a 200 whose body starts a JSON array; then stops reading it. */
async function served (t: Test, res: IncomingMessage, what: string): Promise<void> {
  t.equal(res.statusCode, 200, what)
  const [first] = await once(res, 'data') as [Buffer]
  t.equal(first.toString().slice(0, 2), '[{', 'its rows arrive')
  res.destroy()
}

/** Each of `cut` sees its list end without the final chunk, once it reads on. */
async function seenCut (t: Test, cut: readonly IncomingMessage[]): Promise<void> {
  const ends = cut.map(async (res) => {
    const aborted = once(res, 'error')
    res.resume()
    return await aborted
  })
  for (const [error] of await Promise.all(ends)) t.match(error, { code: 'ECONNRESET', message: 'aborted' }, 'the client can tell the list was cut: no final chunk')
  for (const res of cut) t.notOk(res.complete)
}

t.test('with every reader held by a client that does not read, another client\'s list gets a 503 with Retry-After within the bound', async (t) => {
  const server = await listen(t, { acquireTimeoutMs: 200, stallMs: 600_000, contendedStallMs: 600_000 })
  await stalled(t, server, READERS)
  const refused = await server.get('/books', OTHER)
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
  const cuts = logged(server.warnings, CUT, READERS)
  const held = await stalled(t, server, READERS)
  await cuts
  t.pass('each cut is logged')
  // Read on: what was sent before the cut arrives, then the connection's end, without the final chunk.
  await seenCut(t, held)
  const whole = await server.get('/books', AUTH)
  t.equal(whole.statusCode, 200)
  const books = JSON.parse(await body(whole)) as unknown[]
  t.equal(books.length, 200_003, 'a reader came free: the next list is read whole')
})

t.test('while another request waits for a reader, a list whose client does not read is cut at the shorter bound, and that request is served', async (t) => {
  // Never cut by the usual bound here: only a request waiting can cut them.
  const server = await listen(t, { acquireTimeoutMs: 60_000, stallMs: 600_000, contendedStallMs: 200 })
  const held = await stalled(t, server, READERS)
  t.strictSame(server.app.store.readers(), { inUse: READERS, waiting: 0 }, 'every reader held, no one waiting')
  let cuts = 0
  server.warnings.on('warn', (said: string) => { if (said === CUT_FOR_ANOTHER) cuts++ })
  await served(t, await server.get('/books', OTHER), 'the waiting request is served once a reader is freed for it')
  // Cut only while it waited, and logged as each was: all told by the time it was served.
  t.ok(cuts >= 1, 'the cut is logged, naming why')
  const ends = await Promise.all(held.map(async (res) => await body(res).then(() => 'whole', (error: NodeJS.ErrnoException) => error.code)))
  t.equal(ends.filter((end) => end === 'ECONNRESET').length, cuts, 'each list cut ends without its final chunk; any other is read whole')
})

t.test('a key holding its share of the readers is refused its next list, while another key is served', async (t) => {
  const server = await listen(t, { maxReaders: 4, acquireTimeoutMs: 200, stallMs: 600_000 })
  await stalled(t, server, 2)
  await tooMany(t, await server.get('/books', AUTH))
  t.strictSame(server.app.store.readers(), { inUse: 2, waiting: 0 }, 'the refused list took no reader and waited for none')
  await served(t, await server.get('/books', OTHER), 'another key\'s list is served')
})

t.test('without a key, an address holding its share of the readers is refused its next list, while another address is served', async (t) => {
  const server = await listen(t, { maxReaders: 4, acquireTimeoutMs: 200, stallMs: 600_000 })
  await stalled(t, server, 2, {}, '/ledger', '127.0.0.1')
  await tooMany(t, await server.get('/ledger', {}, '127.0.0.1'))
  await served(t, await server.get('/ledger', {}, '127.0.0.2'), 'another address\'s list is served')
  await served(t, await server.get('/books', AUTH, '127.0.0.1'), 'and a key\'s from the same address: a key is a client of its own')
})

t.test('PostgreSQL', async (t) => {
  if (!await needs(t, 'PostgreSQL')) return
  const schema = freshSchema()
  t.teardown(schema.drop)
  /** pg's default pool: the connections plain lists and every other query share. */
  const POOL = 10

  async function listenOnPostgres (t: Test, options: Partial<AppOptions>): Promise<Listening> {
    return await listen(t, { databaseUrl: schema.url, ...options })
  }

  const seeding = await buildApp(t, { databaseUrl: schema.url })
  await sql`insert into books select g, 'Book number ' || g || ' of a long shelf', 'published', '12.50', '2001-01-01', 1 from generate_series(4, 200003) g`.execute(seeding.app.store.db)

  t.test('a key holding its share of the pool is refused its next list, while another key is served', async (t) => {
    // The default wait (3 s): on PostgreSQL it bounds opening a connection too, which a busy machine may take long for.
    const server = await listenOnPostgres(t, { stallMs: 600_000 })
    await stalled(t, server, 2)
    await tooMany(t, await server.get('/books', AUTH))
    await served(t, await server.get('/books', OTHER), 'another key\'s list is served')
  })

  t.test('while another request waits for a connection, a list whose client does not read is cut at the shorter bound, and that request is served', async (t) => {
    // One key holds the whole pool here: no share per client, and never the usual bound.
    const server = await listenOnPostgres(t, { streamsPerClient: 0, acquireTimeoutMs: 60_000, stallMs: 600_000, contendedStallMs: 200 })
    await stalled(t, server, POOL)
    t.strictSame(server.app.store.readers(), { inUse: POOL, waiting: 0 }, 'every pooled connection held, no one waiting')
    let cuts = 0
    server.warnings.on('warn', (said: string) => { if (said === CUT_FOR_ANOTHER) cuts++ })
    await served(t, await server.get('/books', OTHER), 'the waiting request is served once a connection is freed for it')
    t.ok(cuts >= 1, 'the cut is logged, naming why')
  })
})
