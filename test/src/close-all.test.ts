// The close step of a shutdown (src/close-all.ts): clients that connect in a loop, a new connection
// per request, each get an answer or a refusal while the listener closes, never a reset.
import { EventEmitter, once } from 'node:events'
import { request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { closeAll } from '../../src/close-all.js'
import { createListener, Generations, type Generation } from '../../src/generations.js'
import { LISTENER_LIMITS } from '../../src/server.js'

/** Clients connecting in a loop, as many as the issue that found the resets had. */
const CLIENTS = 12

interface Warning { readonly details: object, readonly message: string }

/**
 * A generation that answers at once, except `/hold`, kept open until the test ends it; it counts the
 * requests handed to it once the listener closed (their answers say `Connection: close`).
 */
function answering (): Generation & { closed: boolean, afterClose: number, readonly held: EventEmitter } {
  const generation = {
    closed: false,
    afterClose: 0,
    held: new EventEmitter(),
    events: new EventEmitter(),
    serve: (request: IncomingMessage, response: ServerResponse) => {
      if (response.getHeader('connection') === 'close') generation.afterClose++
      if (request.url === '/hold') generation.held.emit('response', response)
      else response.end('served')
    },
    close: async () => { generation.closed = true }
  }
  return generation
}

async function listening (t: Test, generations: Generations): Promise<{ server: Server, port: number }> {
  const server = createListener(generations, LISTENER_LIMITS)
  await new Promise<void>((resolve) => { server.listen({ port: 0, host: '127.0.0.1' }, resolve) })
  t.teardown(() => { server.closeAllConnections() })
  return { server, port: (server.address() as AddressInfo).port }
}

/** One request on a connection of its own: the answer's status, or the error's code. */
async function ask (port: number, path = '/'): Promise<string> {
  return await new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false })
    req.on('response', (res) => {
      res.resume()
      res.on('end', () => { resolve(String(res.statusCode)) })
      res.on('error', (error: NodeJS.ErrnoException) => { resolve(`response ${error.code ?? error.message}`) })
    })
    req.on('error', (error: NodeJS.ErrnoException) => { resolve(error.code ?? error.message) })
    req.end()
  })
}

t.test('clients connecting in a loop through the close are each answered or refused, never reset', async (t) => {
  const generation = answering()
  const generations = new Generations(generation)
  const { server, port } = await listening(t, generations)
  const outcomes = new Map<string, number>()
  const answered = new EventEmitter()
  // Each client asks again as soon as it has its answer, until the listener refuses it.
  const loop = async (): Promise<string> => {
    for (;;) {
      const outcome = await ask(port)
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
      answered.emit('answer')
      if (outcome !== '200') return outcome
    }
  }
  const loops = Array.from({ length: CLIENTS }, loop)
  // Every client busy: well past one answer each.
  while ((outcomes.get('200') ?? 0) < CLIENTS * 5) await once(answered, 'answer')

  const warnings: Warning[] = []
  await closeAll(server, generations, { warn: (details, message) => { warnings.push({ details, message }) } })
  t.same(await Promise.all(loops), Array(CLIENTS).fill('ECONNREFUSED'), 'each client ends refused, cleanly')
  t.same([...outcomes.keys()].sort(), ['200', 'ECONNREFUSED'], 'every other outcome an answer: no ECONNRESET, no EPIPE')
  t.ok(generation.afterClose > 0, 'requests held while the listener emptied its queue were answered once it closed')
  t.same(warnings, [], 'the queue was emptied in time')
  t.ok(generation.closed, 'then the generation was closed')
  t.equal(server.listening, false)
})

t.test('a client answered while the queue empties, asking again at once, is answered too', async (t) => {
  const generation = answering()
  const generations = new Generations(generation)
  const { server, port } = await listening(t, generations)
  const holding = once(generation.held, 'response')
  const first = ask(port, '/hold')
  const [response] = await holding as [ServerResponse]
  const closing = closeAll(server, generations, { warn: () => {} })
  // Answered in the first turn of the wait: its client reads the answer in the next, and connects again then.
  setImmediate(() => { response.end('held') })
  t.equal(await first, '200')
  t.equal(await ask(port), '200', 'accepted before the listener closed, and answered after')
  t.equal(await ask(port), 'ECONNREFUSED', 'then refused')
  await closing
})

t.test('a listener still taking connections after the turns allowed is closed anyway, and says so', async (t) => {
  const generation = answering()
  const generations = new Generations(generation)
  const { server, port } = await listening(t, generations)
  const warnings: Warning[] = []
  await closeAll(server, generations, { warn: (details, message) => { warnings.push({ details, message }) } }, 0)
  t.match(warnings, [{ details: { turns: 0 }, message: /^connections still arriving/ }])
  t.equal(await ask(port), 'ECONNREFUSED')
  t.ok(generation.closed)
})
