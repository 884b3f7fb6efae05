// PostgreSQL out of reach and back, through a proxy the test cuts: pooled connections lost while
// idle are logged, every data route and readiness answer 503 meanwhile, liveness stays 200, and the
// same app serves again once the database answers, without a restart.
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import t from 'tap'
import app from '../../demo/app.js'
import { STORE_UNAVAILABLE_DETAIL } from '../../src/core/problem.js'
import { AGENT, AUTH, KEY } from '../helpers/app.js'
import { tcpProxy } from '../helpers/proxy.js'
import { freshSchema, needs, SERVICES } from '../helpers/services.js'

if (await needs(t, 'PostgreSQL')) {
  const proxy = await tcpProxy(new URL(SERVICES.PostgreSQL))
  t.teardown(proxy.close)
  const schema = freshSchema()
  t.teardown(schema.drop)
  const url = new URL(schema.url)
  url.port = String(proxy.port)
  const logs: Array<{ level: number, msg: string }> = []
  let lostWhileIdle: () => void = () => {}
  const lost = new Promise<void>((resolve) => { lostWhileIdle = resolve })
  const server = Fastify({
    logger: {
      level: 'warn',
      stream: {
        write: (line: string) => {
          const entry = JSON.parse(line) as { level: number, msg: string }
          logs.push(entry)
          if (entry.msg === 'store connection lost') lostWhileIdle()
        }
      }
    }
  })
  await server.register(fp(app), { databaseUrl: url.toString(), timeZone: 'UTC', apiKeys: [KEY] })
  await server.ready()
  t.teardown(() => server.close())
  const status = async (path: string, headers: Record<string, string> = {}) => (await server.inject({ url: path, headers })).statusCode

  t.test('served while the database answers', async (t) => {
    t.strictSame([await status('/books', AUTH), await status('/ledger', AGENT), await status('/readyz')], [200, 200, 200])
  })

  t.test('out of reach: idle connections lost are logged, data and readiness answer 503, liveness 200', async (t) => {
    await proxy.cut()
    await lost
    t.match(logs, [{ level: 40, msg: 'store connection lost' }])
    for (const [path, headers] of [['/books', AUTH], ['/books', AGENT], ['/invoices', AGENT], ['/ledger', {}]] as const) {
      const res = await server.inject({ url: path, headers })
      t.equal(res.statusCode, 503, `${path} ${headers === AGENT ? 'agent' : 'plain'}`)
      t.equal(res.json().detail, STORE_UNAVAILABLE_DETAIL)
    }
    t.equal(await status('/readyz'), 503)
    t.equal(await status('/healthz'), 200)
  })

  t.test('back: the same app serves again', async (t) => {
    await proxy.restore()
    t.strictSame([await status('/books', AUTH), await status('/ledger', AGENT), await status('/readyz')], [200, 200, 200])
  })
}
