// The one listener in front of successive apps (src/generations.ts): each request is served by the
// generation current when it arrived, a replaced generation is closed once its last request has
// ended, and the connection-level events (a malformed request, CONNECT) reach the current one.
import { EventEmitter, once } from 'node:events'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { pino } from 'pino'
import t, { type Test } from 'tap'
import { createListener, Generations, type Generation } from '../../src/generations.js'
import { buildGeneration } from '../../src/reload.js'
import { generationOptions, LISTENER_LIMITS } from '../../src/server.js'

interface Fake extends Generation {
  readonly name: string
  closed: boolean
  /** How many times it was closed. */
  closes: number
  /** Responses to `/hold`, kept open until the test ends them. */
  readonly held: ServerResponse[]
  /** Told each request held ('held'), and its close ('closed'). */
  readonly holding: EventEmitter
}

function fake (name: string): Fake {
  const generation: Fake = {
    name,
    closed: false,
    closes: 0,
    held: [],
    holding: new EventEmitter(),
    events: new EventEmitter(),
    serve: (request: IncomingMessage, response: ServerResponse) => {
      if (request.url !== '/hold') return response.end(name)
      generation.held.push(response)
      generation.holding.emit('held')
    },
    close: async () => {
      generation.closed = true
      generation.closes++
      generation.holding.emit('closed')
    }
  }
  return generation
}

async function listening<G extends Generation> (t: Test, generations: Generations<G>): Promise<{ server: Server, url: string, port: number }> {
  const server = createListener(generations, LISTENER_LIMITS)
  await new Promise<void>((resolve) => { server.listen({ port: 0, host: '127.0.0.1' }, resolve) })
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => { server.close(resolve) })
  })
  const { port } = server.address() as AddressInfo
  return { server, url: `http://127.0.0.1:${port}`, port }
}

/** What the listener answers to `bytes` sent on a connection of their own. */
async function raw (port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  socket.end(bytes)
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  await once(socket, 'close')
  return Buffer.concat(chunks).toString()
}

t.test('the listener has the limits Fastify would set on a server of its own', async (t) => {
  const { server } = await listening(t, new Generations(fake('first')))
  t.equal(server.requestTimeout, LISTENER_LIMITS.requestTimeout)
  t.equal(server.headersTimeout, LISTENER_LIMITS.requestTimeout, 'the headers and the body share the one deadline')
  t.equal(server.keepAliveTimeout, LISTENER_LIMITS.keepAliveTimeout)
  t.equal(server.timeout, LISTENER_LIMITS.connectionTimeout)
  t.equal((server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval, LISTENER_LIMITS.http.connectionsCheckingInterval)
})

t.test('a request is served by the generation current when it arrived, to its end', async (t) => {
  const first = fake('first')
  const generations = new Generations<Fake>(first)
  const { url } = await listening(t, generations)
  t.equal(await (await fetch(url)).text(), 'first')

  const holding = once(first.holding, 'held')
  const pending = fetch(`${url}/hold`)
  await holding
  t.equal(generations.inFlight, 1)

  const second = fake('second')
  let replaced = false
  const closing = generations.replace(second).then(() => { replaced = true })
  t.equal(generations.current, second)
  t.equal(await (await fetch(url)).text(), 'second', 'a new request goes to the new generation')
  t.equal(generations.open, 2)
  t.notOk(first.closed, 'the old one is open while its request is in flight')
  t.notOk(replaced)

  first.held[0].end('held on first')
  t.equal(await (await pending).text(), 'held on first', 'the request in flight ends on the generation it began on')
  await closing
  t.ok(first.closed, 'then that generation is closed')
  t.equal(generations.open, 1)
  t.equal(generations.inFlight, 0)

  const third = fake('third')
  await generations.replace(third)
  t.ok(second.closed, 'an idle generation replaced is closed at once')
})

t.test('quiescing: every answer says Connection: close; closing: the current generation is closed once idle', async (t) => {
  const only = fake('only')
  const generations = new Generations<Fake>(only)
  const { url } = await listening(t, generations)
  const holding = once(only.holding, 'held')
  const pending = fetch(`${url}/hold`)
  await holding
  const quiet = generations.quiesce()
  const closed = generations.close()
  const again = generations.close()
  const late = await fetch(url)
  t.equal(late.headers.get('connection'), 'close', 'a request arriving meanwhile is served, its socket then closed')
  t.equal(await late.text(), 'only')
  t.notOk(only.closed)
  only.held[0].end()
  await pending
  await quiet
  await generations.quiesce()
  t.pass('quiet once no request is in flight')
  await Promise.all([closed, again])
  t.equal(only.closes, 1, 'closed once, however often asked')
})

t.test('held: a request is taken but answered only at quiesce, with Connection: close, by the generation it arrived on', async (t) => {
  const first = fake('first')
  const generations = new Generations<Fake>(first)
  const { server, url } = await listening(t, generations)
  t.equal(await (await fetch(url)).text(), 'first')
  t.equal(generations.ended, 1, 'a request ended is counted')

  generations.hold()
  generations.hold()
  const taken = once(server, 'request')
  const pending = fetch(url)
  const [, response] = await taken as [IncomingMessage, ServerResponse]
  t.notOk(response.headersSent, 'not answered while held (a generation of these answers at once)')
  t.equal(generations.inFlight, 1, 'but in flight')
  const replaced = generations.replace(fake('second'))
  t.notOk(first.closed, 'its generation stays open for it')
  t.equal(generations.ended, 1)

  const quiet = generations.quiesce()
  const late = await pending
  t.equal(await late.text(), 'first', 'answered by the generation current when it arrived')
  t.equal(late.headers.get('connection'), 'close')
  await Promise.all([quiet, replaced])
  t.equal(generations.ended, 2)
  t.ok(first.closed)
  t.equal(await (await fetch(url)).text(), 'second', 'a request after the quiesce is not held')
})

t.test('closing closes the generations replaced too, once their requests have ended', async (t) => {
  const first = fake('first')
  const generations = new Generations<Fake>(first)
  const { url } = await listening(t, generations)
  const holding = once(first.holding, 'held')
  const pending = fetch(`${url}/hold`)
  await holding
  const second = fake('second')
  const replaced = generations.replace(second)
  let closed = false
  const closing = generations.close().then(() => { closed = true })
  await once(second.holding, 'closed')
  t.pass('the idle current one is closed at once')
  t.notOk(closed, 'the close waits for the replaced one')
  first.held[0].end()
  await pending
  await Promise.all([replaced, closing])
  t.ok(first.closed)
  t.equal(generations.open, 0)
})

t.test('a malformed request is answered by the current generation, as its own server would', async (t) => {
  const generation = await buildGeneration(generationOptions('silent', pino({ level: 'silent' })), async () => {})
  const generations = new Generations(generation)
  t.teardown(async () => { await generations.close() })
  const { port } = await listening(t, generations)
  const answer = await raw(port, 'NOT HTTP AT ALL\r\n\r\n')
  t.match(answer, /^HTTP\/1\.1 400 /, 'the gateway\'s problem, not Node\'s bare 400')
  t.match(answer, /application\/problem\+json/)
  t.match(answer, /The request is not well-formed HTTP\/1\.1\./)
})

t.test('CONNECT reaches the current generation\'s listeners', async (t) => {
  const first = fake('first')
  const generations = new Generations<Fake>(first)
  const { port } = await listening(t, generations)
  const second = fake('second')
  await generations.replace(second)
  second.events.on('connect', (_request: IncomingMessage, socket: NodeJS.WritableStream) => { socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n\r\n') })
  t.match(await raw(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), /^HTTP\/1\.1 405 /)
})
