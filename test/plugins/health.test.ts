import t from 'tap'
import { AUTH, buildApp } from '../helpers/app.js'

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

t.test('once the app drains, readiness is a 503 shutting-down problem, and every answer says Connection: close', async (t) => {
  const { app } = await buildApp(t)
  const before = await app.inject({ url: '/healthz' })
  t.not(before.headers.connection, 'close', 'not before')
  app.drain()
  t.ok(app.draining)
  const ready = await app.inject({ url: '/readyz' })
  t.equal(ready.statusCode, 503)
  t.equal(ready.headers.connection, 'close')
  t.strictSame(ready.json(), {
    type: 'urn:audience-gateway:problem:shutting-down',
    title: 'Shutting down',
    status: 503,
    detail: 'The replica is shutting down: route requests to another.',
    request_id: ready.headers['x-request-id']
  })
  const books = await app.inject({ url: '/books/1', headers: AUTH })
  t.equal(books.statusCode, 200, 'the rest is still served')
  t.equal(books.headers.connection, 'close')
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'alive all along')
})
