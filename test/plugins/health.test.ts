import t from 'tap'
import { buildApp } from '../helpers/app.js'

t.test('liveness and readiness answer ok without a key', async (t) => {
  const { app } = await buildApp(t)
  for (const url of ['/healthz', '/readyz']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 200, url)
    t.strictSame(res.json(), { status: 'ok' })
  }
})

t.test('readiness is a 503 problem when the store does not answer; liveness stays ok', async (t) => {
  const { app } = await buildApp(t)
  await app.store.db.destroy()
  const res = await app.inject({ url: '/readyz' })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
  t.match(res.json(), { status: 503, title: 'Store unavailable' })
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200)
})
