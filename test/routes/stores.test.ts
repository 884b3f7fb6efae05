// Either store serves the same bytes: every route, both audiences, the app on SQLite and the app on
// PostgreSQL give identical bodies and ETags (a plain list's weak one names its store's version of
// the data, so each store has its own), so moving to PostgreSQL changes nothing a client sees.
import t from 'tap'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'
import { sameValidator } from '../helpers/etag.js'
import { freshSchema, needs } from '../helpers/services.js'

const OPEN_AGENT = { 'x-audience': 'agent' }

const REQUESTS: ReadonlyArray<[string, Record<string, string>]> = [
  ['/books', AUTH],
  ['/books?page=2&limit=2', AGENT],
  ['/books/with-authors?limit=2', AGENT],
  ['/books/3', AUTH],
  ['/books/3', AGENT],
  ['/books/2/text', AUTH],
  ['/books/2/text?start_line=100', AGENT],
  ['/invoices', AUTH],
  ['/invoices', AGENT],
  ['/ledger', {}],
  ['/ledger?offset=1200', OPEN_AGENT],
  ['/ledger?limit=500&offset=333', OPEN_AGENT],
  ['/books/99', AGENT],
  ['/ledger?offset=-1', OPEN_AGENT]
]

if (await needs(t, 'PostgreSQL')) {
  const schema = freshSchema()
  const sqlite = await buildApp(t, { timeZone: 'Europe/Paris' })
  const postgres = await buildApp(t, { timeZone: 'Europe/Paris', databaseUrl: schema.url })
  t.teardown(schema.drop)

  t.test('the same request gets the same status, headers that matter, and bytes', async (t) => {
    for (const [url, headers] of REQUESTS) {
      // One request id for both: a problem names it, and the bodies are compared byte for byte.
      const sent = { ...headers, 'x-request-id': 'compared' }
      const [one, other] = await Promise.all([sqlite.app.inject({ url, headers: sent }), postgres.app.inject({ url, headers: sent })])
      const what = `${url} (${headers['x-audience'] ?? 'plain'})`
      t.equal(other.statusCode, one.statusCode, `${what}: ${one.statusCode}`)
      t.equal(other.headers['content-type'], one.headers['content-type'], `${what}: the media type`)
      sameValidator(t, other.headers.etag, one.headers.etag, what)
      t.equal(other.body, one.body, `${what}: the body`)
    }
  })
}
