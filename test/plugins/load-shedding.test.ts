import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'

/** Waits until the app sheds: its first samples are taken, and the start has left them. */
async function shedding (app: FastifyInstance): Promise<void> {
  for (let tries = 0; (await app.inject({ url: '/books/1', headers: AUTH })).statusCode !== 503; tries++) {
    if (tries > 400) throw new Error('never shed')
    await sleep(10)
  }
}

t.test('past a threshold a request is refused with a 503 problem and Retry-After', async (t) => {
  // Any heap is more than one byte: pressure from the first sample on.
  const { app } = await buildApp(t, { loadShedding: { maxHeapUsedBytes: 1, sampleInterval: 10, retryAfter: 3 } })
  await shedding(app)
  for (const headers of [AUTH, AGENT]) {
    const res = await app.inject({ url: '/books', headers })
    t.equal(res.statusCode, 503)
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
    t.equal(res.headers['retry-after'], '3')
    t.strictSame(res.json(), { type: 'urn:audience-gateway:problem:overloaded', title: 'Overloaded', status: 503, detail: 'The server is overloaded; retry after 3 s.' })
  }
})

t.test('a shed request is refused before authentication does any work', async (t) => {
  const { app } = await buildApp(t, { loadShedding: { maxHeapUsedBytes: 1, sampleInterval: 10 } })
  await shedding(app)
  const res = await app.inject({ url: '/books', headers: { authorization: 'Bearer wrong-key-0123456789' } })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '10', 'the default delay')
})

t.test('under pressure liveness still answers, and readiness says not ready', async (t) => {
  const { app } = await buildApp(t, { loadShedding: { maxHeapUsedBytes: 1, sampleInterval: 10 } })
  await shedding(app)
  const live = await app.inject({ url: '/healthz' })
  t.equal(live.statusCode, 200)
  t.strictSame(live.json(), { status: 'ok' })
  const ready = await app.inject({ url: '/readyz' })
  t.equal(ready.statusCode, 503)
  t.equal(ready.headers['retry-after'], '10')
  t.equal(ready.headers['content-type'], 'application/problem+json; charset=utf-8')
})

t.test('a failing health check sheds too', async (t) => {
  const { app } = await buildApp(t, {
    loadShedding: { healthCheck: async () => false, maxEventLoopDelay: 60_000, maxRssBytes: 2 ** 50, sampleInterval: 10 }
  })
  await shedding(app)
  const res = await app.inject({ url: '/books', headers: AGENT })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '10')
})

t.test('the start is not taken for load: pressure measured then is not acted on', async (t) => {
  const { app } = await buildApp(t, { loadShedding: { maxHeapUsedBytes: 1, sampleInterval: 1000 } })
  for (let tries = 0; !app.isUnderPressure(); tries++) {
    if (tries > 300) throw new Error('never under pressure')
    await sleep(10)
  }
  t.equal((await app.inject({ url: '/books/1', headers: AUTH })).statusCode, 200, 'under pressure, but the first samples overlap the start')
  await shedding(app)
  t.pass('shed from the next sample on')
})

t.test('with the defaults a healthy process sheds nothing', async (t) => {
  const { app } = await buildApp(t)
  await sleep(1100)
  t.equal(app.isUnderPressure(), false)
  t.equal((await app.inject({ url: '/books', headers: AUTH })).statusCode, 200)
  t.equal((await app.inject({ url: '/readyz' })).statusCode, 200)
})
