import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import t from 'tap'
import { helmetHeaders, SWAGGER_UI_LOGO_STYLE } from '../../plugins/security-headers.js'
import { AUTH, buildApp } from '../helpers/app.js'

const { app } = await buildApp(t)

const POLICY = "default-src 'self';base-uri 'self';connect-src 'self';font-src 'self' data:;form-action 'self';" +
  "frame-ancestors 'none';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';" +
  `style-src 'self' ${SWAGGER_UI_LOGO_STYLE}`

const API_HEADERS = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY'
}

/** Headers only a rendered page uses: an API answer goes without them. */
const DOCUMENT_ONLY = ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-xss-protection']

t.test('every API answer, a problem and a refusal included, carries the API set: a policy admitting nothing', async (t) => {
  const answers = [
    ['/books/1', AUTH, 200], ['/books', { ...AUTH, 'x-audience': 'agent' }, 200], ['/books', AUTH, 200],
    ['/books/1/text', AUTH, 200], ['/books', {}, 401], ['/nowhere', {}, 404], ['/healthz', {}, 200], ['/openapi.json', {}, 200]
  ] as const
  for (const [url, headers, status] of answers) {
    const res = await app.inject({ url, headers })
    t.equal(res.statusCode, status, url)
    t.match(res.headers, API_HEADERS, url)
    for (const name of DOCUMENT_ONLY) t.notOk(name in res.headers, `${url}: no ${name}`)
  }
})

t.test('a not-modified answer keeps the set', async (t) => {
  const first = await app.inject({ url: '/books/1', headers: AUTH })
  const again = await app.inject({ url: '/books/1', headers: { ...AUTH, 'if-none-match': String(first.headers.etag) } })
  t.equal(again.statusCode, 304)
  t.match(again.headers, API_HEADERS)
})

t.test('the Swagger UI page gets the whole set, with the policy of this origin only', async (t) => {
  const page = await app.inject({ url: '/docs/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.headers, { ...API_HEADERS, 'content-security-policy': POLICY, 'cross-origin-opener-policy': 'same-origin', 'x-xss-protection': '0' })
  for (const name of DOCUMENT_ONLY) t.ok(name in page.headers, name)
})

t.test('Swagger UI at /docs links only its own files, with nothing inline', async (t) => {
  const page = await app.inject({ url: '/docs' })
  t.equal(page.statusCode, 200)
  t.equal(page.headers['content-security-policy'], POLICY)
  t.notMatch(page.body, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script')
  t.notMatch(page.body, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style nor handler')
  const linked = Array.from(page.body.matchAll(/\s(?:src|href)="([^"]+)"/g), (match) => match[1])
  t.ok(linked.length >= 5, 'its scripts and styles')
  for (const url of [...linked, '/docs/json']) {
    t.match(url, /^\/docs\//, `${url} is on this origin`)
    const asset = await app.inject({ url })
    t.equal(asset.statusCode, 200, url)
    // A script's or a stylesheet's own policy is never applied: the page's governs what it loads.
    t.equal(asset.headers['content-security-policy'], API_HEADERS['content-security-policy'], url)
  }
})

t.test('the hash the policy admits is that of the one stylesheet the installed Swagger UI writes inline', async (t) => {
  const require = createRequire(import.meta.url)
  const preset = readFileSync(join(dirname(require.resolve('@fastify/swagger-ui')), 'static', 'swagger-ui-standalone-preset.js'), 'utf8')
  const styles = Array.from(preset.matchAll(/createElement\("style",null,"([^"]*)"\)/g), (match) => match[1])
  t.equal(styles.length, 1)
  t.equal(`'sha256-${createHash('sha256').update(styles[0]).digest('base64')}'`, SWAGGER_UI_LOGO_STYLE)
})

t.test('a policy helmet refuses when it writes the header stops the start, not a request', async (t) => {
  // A directive computed per request is refused by helmet only when it runs: here, once, at start.
  const directives = { defaultSrc: [() => "'self'; script-src *"] }
  t.throws(() => helmetHeaders({ contentSecurityPolicy: { useDefaults: false, directives } }), /invalid directive value for "default-src"/)
})
