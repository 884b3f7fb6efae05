// An upstream record's path parameters stay in their segment: a dot segment is refused naming the
// argument before the upstream is asked, whatever the mount's parameter schema allows; any other
// value is sent as one segment of the declared path. Over a socket, so the path is read as sent.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { startDemoUpstream } from '../../demo/upstream.js'
import { DOT_SEGMENT } from '../../src/sources/upstream/index.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'
import { rawGet } from '../helpers/raw-get.js'

const upstream = await startDemoUpstream({ rows: 10 })
t.teardown(async () => { await upstream.close() })

// The demo's product file, its record source reading `/products/{sku}/x` and its SKU unconstrained.
const file = JSON.parse(await readFile('examples/products.gateway.json', 'utf8')) as {
  sources: Record<string, { path: string }>
  mounts: Array<{ url: string, params?: Record<string, Record<string, unknown>> }>
}
file.sources.product.path = '/products/{sku}/x'
const mount = file.mounts.find((declared) => declared.url === '/products/:sku')!
delete mount.params!.sku.pattern
const path = join(t.testdir(), 'products.gateway.json')
await writeFile(path, JSON.stringify(file))
const app = await buildDeclaredApp(t, path, { env: { UPSTREAM_URL: upstream.url }, setUp: undefined })
const address = await app.listen({ host: '127.0.0.1', port: 0 })

t.beforeEach(() => { upstream.requests.clear() })

t.test('a dot segment, in any spelling, is a 400 naming the argument, and the upstream is not asked', async (t) => {
  for (const sku of ['..', '.', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '%2e', '%2E']) {
    const { status, body } = await rawGet(address, `/products/${sku}`)
    t.equal(status, 400, sku)
    t.strictSame(body.errors, { sku: [DOT_SEGMENT] }, sku)
  }
  t.equal(upstream.requests.count, 0)
})

t.test('any other value is one segment of the declared path', async (t) => {
  for (const [sku, sent] of [['SKU-00001', 'SKU-00001'], ['...', '...'], ['a.b', 'a.b'], ['..%2Fx', '..%2Fx'], ['%2F', '%2F'], ['%3F', '%3F']]) {
    upstream.requests.clear()
    const { status } = await rawGet(address, `/products/${sku}`)
    t.equal(status, 404, `${sku}: the upstream has no such path`)
    t.strictSame(upstream.requests.recent.map((request) => request.path), [`/products/${sent}/x`], sku)
  }
})
