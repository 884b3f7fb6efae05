import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import t from 'tap'
import { SWAGGER_UI_LOGO_STYLE } from '../../plugins/security-headers.js'
import { AUTH, buildApp } from '../helpers/app.js'

const { app } = await buildApp(t)

const POLICY = "default-src 'self';base-uri 'self';connect-src 'self';font-src 'self' data:;form-action 'self';" +
  "frame-ancestors 'none';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';" +
  `style-src 'self' ${SWAGGER_UI_LOGO_STYLE}`

t.test('every answer, a problem included, carries the policy of this origin only', async (t) => {
  for (const [url, headers] of [['/books/1', AUTH], ['/books', {}], ['/healthz', {}]] as const) {
    const res = await app.inject({ url, headers })
    t.equal(res.headers['content-security-policy'], POLICY, url)
    t.equal(res.headers['x-content-type-options'], 'nosniff', url)
    t.equal(res.headers['x-frame-options'], 'DENY', url)
  }
})

t.test('Swagger UI at /docs links only its own files, with nothing inline, each served under the policy', async (t) => {
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
    t.equal(asset.headers['content-security-policy'], POLICY, url)
  }
})

t.test('the hash the policy admits is that of the one stylesheet the installed Swagger UI writes inline', async (t) => {
  const require = createRequire(import.meta.url)
  const preset = readFileSync(join(dirname(require.resolve('@fastify/swagger-ui')), 'static', 'swagger-ui-standalone-preset.js'), 'utf8')
  const styles = Array.from(preset.matchAll(/createElement\("style",null,"([^"]*)"\)/g), (match) => match[1])
  t.equal(styles.length, 1)
  t.equal(`'sha256-${createHash('sha256').update(styles[0]).digest('base64')}'`, SWAGGER_UI_LOGO_STYLE)
})
