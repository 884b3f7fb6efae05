// Fastify answers HEAD beside every GET route: each is answered as its GET is (status and headers),
// with no body and never a 5xx, for a plain client, an agent and a caller without a key.
import t from 'tap'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

const { app, routes } = await buildApp(t)

/** A URL that reaches `path`: each parameter given a value its route serves. */
function urlOf (path: string): string {
  return path.replace(/:[A-Za-z_]+/g, '1').replace(/\*$/, 'index.html')
}

/** Headers a GET and its HEAD may answer differently: per-request values and a body's length. */
const VARYING = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-length', 'transfer-encoding', 'retry-after'])

/** The headers to compare; the metrics change with every request (this one counted), so their ETag does too. */
function comparable (path: string, headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !VARYING.has(name) && !(path === '/metrics' && name === 'etag')))
}

const gets = [...new Set(routes.filter((route) => [route.method].flat().includes('GET')).map((route) => route.url))]

t.test('every GET route has a HEAD answered as its GET, without a body', async (t) => {
  t.ok(gets.includes('/mcp') && gets.includes('/books/:id/cover'), 'the routes include /mcp and the cover')
  for (const path of gets) {
    const url = urlOf(path)
    for (const [who, headers] of Object.entries({ plain: AUTH, agent: AGENT, anonymous: {} })) {
      const get = await app.inject({ method: 'GET', url, headers })
      const head = await app.inject({ method: 'HEAD', url, headers })
      t.ok(head.statusCode < 500, `HEAD ${url} (${who}) is not a server error: ${head.statusCode}`)
      t.equal(head.statusCode, get.statusCode, `HEAD ${url} (${who}) has its GET's status`)
      t.strictSame(comparable(path, head.headers), comparable(path, get.headers), `HEAD ${url} (${who}) has its GET's headers`)
      t.equal(head.body, '', `HEAD ${url} (${who}) has no body`)
    }
  }
})

t.test('HEAD /mcp is refused as GET is: 405, Allow: POST', async (t) => {
  const head = await app.inject({ method: 'HEAD', url: '/mcp', headers: { ...AUTH, accept: 'application/json, text/event-stream' } })
  t.equal(head.statusCode, 405)
  t.equal(head.headers.allow, 'POST')
})
