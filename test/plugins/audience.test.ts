// Audience resolution: the header decides, else Accept is negotiated; Vary is appended, never set.
import t from 'tap'
import requestId from '../../plugins/request-id.js'
import Fastify, { type FastifyReply } from 'fastify'
import vary from 'vary'
import audience from '../../plugins/audience.js'
import problems from '../../plugins/problems.js'
import { AGENT_MEDIA_TYPE, JSON_VARIANTS, TEXT_VARIANTS } from '../../src/audience.js'
import { problemBody, PROBLEM_JSON } from '../helpers/problem.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Test only: when a CORS-like plugin adds `Origin` to Vary, relative to this plugin. */
    varyOrigin?: 'before' | 'after'
  }
}

const VARY = 'Accept, X-Audience'

const app = Fastify()
app.addHook('onRequest', async (request, reply) => {
  if (request.routeOptions.config.varyOrigin === 'before') addOrigin(reply)
})
await app.register(requestId)
await app.register(audience)
await app.register(problems)
app.addHook('onSend', async (request, reply, payload) => {
  if (request.routeOptions.config.varyOrigin === 'after') addOrigin(reply)
  return payload
})
app.get('/books', { config: { variants: JSON_VARIANTS } }, async (request) => ({ audience: request.audience }))
app.get('/text', { config: { variants: TEXT_VARIANTS } }, async (request) => ({ audience: request.audience }))
app.get('/before', { config: { variants: JSON_VARIANTS, varyOrigin: 'before' } }, async (request) => ({ audience: request.audience }))
app.get('/after', { config: { variants: JSON_VARIANTS, varyOrigin: 'after' } }, async (request) => ({ audience: request.audience }))
app.get('/healthz', async (request) => ({ audience: request.audience }))
t.teardown(() => app.close())

/** What @fastify/cors does: append Origin to whatever Vary holds. */
function addOrigin (reply: FastifyReply): void {
  reply.header('vary', vary.append(String(reply.getHeader('vary') ?? ''), 'Origin'))
}

/** The audience /books resolved for these request headers (failing on anything but a 200). */
async function audienceFor (headers: Record<string, string | string[]>): Promise<string> {
  const res = await app.inject({ url: '/books', headers })
  if (res.statusCode !== 200) throw new Error(`${res.statusCode}: ${res.body}`)
  return res.json().audience
}

t.test('the audience header "agent" selects the agent, case and spaces aside', async (t) => {
  t.equal(await audienceFor({ 'x-audience': 'agent' }), 'agent')
  t.equal(await audienceFor({ 'x-audience': '  AGENT ' }), 'agent')
})

t.test('the audience header decides over Accept', async (t) => {
  t.equal(await audienceFor({ 'x-audience': 'agent', accept: 'text/csv' }), 'agent')
})

t.test('any other audience header value is a 400 listing the known audiences', async (t) => {
  const res = await app.inject({ url: '/books', headers: { 'x-audience': 'robot' } })
  t.equal(res.statusCode, 400)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.equal(res.headers.vary, VARY)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:unknown-audience',
    title: 'Unknown audience',
    status: 400,
    detail: 'Unknown audience "robot" in the X-Audience header. Known audiences: plain, agent. ' +
      'Send "X-Audience: agent" for the agent variant, and "X-Audience: plain" or no header for the plain one.',
    request_id: res.headers['x-request-id']
  })
})

t.test('the audience header "plain" selects the plain variant, case and spaces aside, whatever Accept asks', async (t) => {
  t.equal(await audienceFor({ 'x-audience': 'plain' }), 'plain')
  t.equal(await audienceFor({ 'x-audience': ' Plain  ', accept: AGENT_MEDIA_TYPE }), 'plain')
  t.equal(await audienceFor({ 'x-audience': 'PLAIN', accept: 'text/csv' }), 'plain')
})

t.test('a repeated audience header naming one audience is that audience', async (t) => {
  t.equal(await audienceFor({ 'x-audience': ['agent', 'Agent'] }), 'agent')
  t.equal(await audienceFor({ 'x-audience': ['plain', 'plain'] }), 'plain')
})

t.test('a repeated audience header naming two audiences, or an unknown one among them, is refused', async (t) => {
  const res = await app.inject({ url: '/books', headers: { 'x-audience': ['agent', 'plain'] } })
  t.equal(res.statusCode, 400)
  t.equal(problemBody(res).detail, 'The X-Audience header is given more than once, with different values ("agent", "plain"): send it once. ' +
    'Known audiences: plain, agent. Send "X-Audience: agent" for the agent variant, and "X-Audience: plain" or no header for the plain one.')
  const unknown = await app.inject({ url: '/books', headers: { 'x-audience': ['agent', 'robot'] } })
  t.equal(unknown.statusCode, 400)
  t.match(problemBody(unknown).detail, /^The X-Audience header is given more than once, with different values \("agent", "robot"\)/)
})

t.test('Accept naming the agent media type selects the agent', async (t) => {
  t.equal(await audienceFor({ accept: AGENT_MEDIA_TYPE }), 'agent')
  t.equal(await audienceFor({ accept: 'application/json' }), 'plain')
})

t.test('Accept q-values are honoured', async (t) => {
  t.equal(await audienceFor({ accept: `application/json;q=0.5, ${AGENT_MEDIA_TYPE};q=0.9` }), 'agent')
  t.equal(await audienceFor({ accept: `${AGENT_MEDIA_TYPE};q=0.5, application/json;q=0.9` }), 'plain')
  t.equal(await audienceFor({ accept: `${AGENT_MEDIA_TYPE};q=0.2, */*;q=0.1` }), 'agent')
})

t.test('a more specific range wins at equal q', async (t) => {
  t.equal(await audienceFor({ accept: `*/*, ${AGENT_MEDIA_TYPE}` }), 'agent')
  t.equal(await audienceFor({ accept: 'application/*, application/json' }), 'plain')
})

t.test('a tie is plain, whatever the order', async (t) => {
  t.equal(await audienceFor({ accept: `${AGENT_MEDIA_TYPE}, application/json` }), 'plain')
  t.equal(await audienceFor({ accept: `application/json, ${AGENT_MEDIA_TYPE}` }), 'plain')
  t.equal(await audienceFor({ accept: `${AGENT_MEDIA_TYPE};q=0.7, application/json;q=0.7` }), 'plain')
  t.equal(await audienceFor({ accept: 'application/*' }), 'plain')
})

t.test('*/* is plain', async (t) => {
  t.equal(await audienceFor({ accept: '*/*' }), 'plain')
})

t.test('no Accept, or an empty one, is plain', async (t) => {
  t.equal(await audienceFor({}), 'plain')
  t.equal(await audienceFor({ accept: ' ' }), 'plain')
})

t.test('media type parameters other than q do not stop a match', async (t) => {
  t.equal(await audienceFor({ accept: 'application/json; charset=utf-8' }), 'plain')
  t.equal(await audienceFor({ accept: `${AGENT_MEDIA_TYPE}; version=1` }), 'agent')
  t.equal(await audienceFor({ accept: `${AGENT_MEDIA_TYPE}; note="a,b;c"; q=0.9, application/json; charset=utf-8; q=0.4` }), 'agent')
  t.equal(await audienceFor({ accept: `application/json; note="say \\"hi\\", then; go";q=1, ${AGENT_MEDIA_TYPE};q=0.4` }), 'plain')
})

t.test('nothing acceptable is a 406 listing the media types on offer', async (t) => {
  const res = await app.inject({ url: '/books', headers: { accept: 'text/csv' } })
  t.equal(res.statusCode, 406)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.equal(res.headers.vary, VARY)
  t.strictSame(problemBody(res), {
    type: 'urn:audience-gateway:problem:not-acceptable',
    title: 'Not acceptable',
    status: 406,
    detail: `None of the media types in Accept is on offer. On offer: application/json, ${AGENT_MEDIA_TYPE}.`,
    request_id: res.headers['x-request-id']
  })
})

t.test('q=0 refuses a media type', async (t) => {
  const res = await app.inject({ url: '/books', headers: { accept: 'application/json;q=0' } })
  t.equal(res.statusCode, 406)
  t.equal(await audienceFor({ accept: `application/json;q=0, ${AGENT_MEDIA_TYPE};q=0.1` }), 'agent')
})

t.test('a route offers its own variants', async (t) => {
  const plain = await app.inject({ url: '/text', headers: { accept: 'text/plain' } })
  t.strictSame(plain.json(), { audience: 'plain' })
  const refused = await app.inject({ url: '/text', headers: { accept: 'application/json' } })
  t.equal(refused.statusCode, 406)
  t.equal(problemBody(refused).detail, `None of the media types in Accept is on offer. On offer: text/plain, ${AGENT_MEDIA_TYPE}.`)
})

t.test('a negotiated response carries Vary', async (t) => {
  const res = await app.inject({ url: '/books', headers: { accept: AGENT_MEDIA_TYPE } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers.vary, VARY)
})

t.test('Vary is appended to one set before the audience plugin', async (t) => {
  const res = await app.inject({ url: '/before', headers: { 'x-audience': 'agent' } })
  t.strictSame(res.json(), { audience: 'agent' })
  t.equal(res.headers.vary, `Origin, ${VARY}`)
})

t.test('Vary set after the audience plugin keeps both', async (t) => {
  const res = await app.inject({ url: '/after' })
  t.strictSame(res.json(), { audience: 'plain' })
  t.equal(res.headers.vary, `${VARY}, Origin`)
})

t.test('an error response keeps a Vary set before it', async (t) => {
  const res = await app.inject({ url: '/before', headers: { accept: 'text/csv' } })
  t.equal(res.statusCode, 406)
  t.equal(res.headers.vary, `Origin, ${VARY}`)
})

t.test('routes without variants are not negotiated', async (t) => {
  const res = await app.inject({ url: '/healthz', headers: { accept: 'text/csv', 'x-audience': 'robot' } })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), { audience: 'plain' })
  t.equal(res.headers.vary, undefined)
})

t.test('the audience header name is configurable', async (t) => {
  const custom = Fastify()
  await custom.register(audience, { header: 'X-Reader' })
  await custom.register(problems)
  custom.get('/books', { config: { variants: JSON_VARIANTS } }, async (request) => ({ audience: request.audience }))
  t.teardown(() => custom.close())

  const agent = await custom.inject({ url: '/books', headers: { 'x-reader': 'agent', 'x-audience': 'robot' } })
  t.strictSame(agent.json(), { audience: 'agent' })
  t.equal(agent.headers.vary, 'Accept, X-Reader')
  const refused = await custom.inject({ url: '/books', headers: { 'x-reader': 'robot' } })
  t.equal(refused.statusCode, 400)
  t.match(problemBody(refused).detail, /^Unknown audience "robot" in the X-Reader header\. .*Send "X-Reader: agent"/)
})
