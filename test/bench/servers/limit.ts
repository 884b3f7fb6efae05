// The limit: Fastify sending bytes it already holds. Every body the scenario measures, captured
// from the gateway before anything is measured (BENCH_BODIES names the file), answered by URL with
// the gateway's media type and nothing else: no key, no store, no work. What any route on this
// machine and this framework can reach at most.
import { readFileSync } from 'node:fs'
import Fastify, { type FastifyInstance } from 'fastify'
import { BENCH_LOGGER } from './options.js'

/** One captured answer: the URL asked (path and query), its media type and its body. */
export interface CapturedBody {
  readonly url: string
  readonly contentType: string
  readonly body: string
}

export async function limitServer (bodiesPath: string): Promise<FastifyInstance> {
  const captured = JSON.parse(readFileSync(bodiesPath, 'utf8')) as CapturedBody[]
  const answers = new Map(captured.map(({ url, contentType, body }) => [url, { contentType, bytes: Buffer.from(body) }]))
  const server = Fastify({ logger: BENCH_LOGGER })
  server.get('/*', async (request, reply) => {
    const answer = answers.get(request.url)
    if (answer === undefined) return await reply.code(404).send()
    return await reply.type(answer.contentType).send(answer.bytes)
  })
  return server
}
