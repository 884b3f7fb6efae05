// Load shedding, with the moment it begins (the arming, a while after the start) in the test's
// hands: either armed on cue, or on a timer whose firing the test awaits. Nothing here sleeps.
import { EventEmitter } from 'node:events'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { LoadSample, LoadSheddingOptions } from '../../plugins/load-shedding.js'
import { AGENT, AUTH, buildApp } from '../helpers/app.js'
import { heldOpen } from '../helpers/until.js'

/**
 * Arms shedding on a timer, as the plugin does by default, and resolves `armed` when it has. By then
 * the first sample of the heap is taken: its timer, of one interval, was started while the app
 * registered, before this one of two intervals from the end of the start, and timers fire in the
 * order they fall due. (Not unref'd, unlike the plugin's: the test waits for it.)
 */
function armedOnTime (): { armAfter: NonNullable<LoadSheddingOptions['armAfter']>, armed: Promise<void> } {
  let done: () => void = () => {}
  const armed = new Promise<void>((resolve) => { done = resolve })
  return { armAfter: (ms, arm) => { setTimeout(() => { arm(); done() }, ms) }, armed }
}

/** Armed as soon as the app has started: for pressure that is there from the start (a failing health check). */
const ARMED_AT_START: LoadSheddingOptions['armAfter'] = (_ms, arm) => { arm() }

/** An app that sheds once its heap outgrows one byte, as any heap does: built, and armed. */
async function shedding (t: Test, options: LoadSheddingOptions = {}): Promise<FastifyInstance> {
  const { armAfter, armed } = armedOnTime()
  const { app } = await buildApp(t, { loadShedding: { maxHeapUsedBytes: 1, sampleInterval: 100, ...options, armAfter } })
  await armed
  return app
}

t.test('past a threshold a request is refused with a 503 problem and Retry-After', async (t) => {
  const app = await shedding(t, { retryAfter: 3 })
  for (const headers of [AUTH, AGENT]) {
    const res = await app.inject({ url: '/books', headers })
    t.equal(res.statusCode, 503)
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
    t.equal(res.headers['retry-after'], '3')
    t.strictSame(res.json(), { type: 'urn:audience-gateway:problem:overloaded', title: 'Overloaded', status: 503, detail: 'The server is overloaded; retry after 3 s.', request_id: res.headers['x-request-id'] })
  }
})

t.test('a shed request is refused before authentication does any work', async (t) => {
  const app = await shedding(t)
  const res = await app.inject({ url: '/books', headers: { authorization: 'Bearer wrong-key-0123456789' } })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '10', 'the default delay')
})

t.test('under pressure liveness still answers, and readiness says not ready', async (t) => {
  const app = await shedding(t)
  const live = await app.inject({ url: '/healthz' })
  t.equal(live.statusCode, 200)
  t.strictSame(live.json(), { status: 'ok' })
  const ready = await app.inject({ url: '/readyz' })
  t.equal(ready.statusCode, 503)
  t.equal(ready.headers['retry-after'], '10')
  t.equal(ready.headers['content-type'], 'application/problem+json; charset=utf-8')
})

t.test('a failing health check sheds too', async (t) => {
  // The check runs once as the app registers, so the pressure is there from the start.
  const { app } = await buildApp(t, {
    loadShedding: { healthCheck: async () => false, maxEventLoopDelay: 60_000, maxRssBytes: 2 ** 50, sampleInterval: 100, armAfter: ARMED_AT_START }
  })
  const res = await app.inject({ url: '/books', headers: AGENT })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '10')
})

t.test('the start is not taken for load: pressure measured then is not acted on', async (t) => {
  let asked: { ms: number, arm: () => void } | undefined
  const { app } = await buildApp(t, {
    loadShedding: { healthCheck: async () => false, sampleInterval: 1000, armAfter: (ms, arm) => { asked = { ms, arm } } }
  })
  t.equal(asked?.ms, 2000, 'armed two samples after the start: the one that ends it measures the start')
  t.ok(app.underPressure(), 'under pressure from the start')
  t.equal((await app.inject({ url: '/books/1', headers: AUTH })).statusCode, 200, 'but not shed before it is armed')
  asked?.arm()
  t.equal((await app.inject({ url: '/books/1', headers: AUTH })).statusCode, 503, 'shed once it is')
})

t.test('with the defaults a healthy process sheds nothing', async (t) => {
  // As every test app: the event-loop lag of a busy test process is not load (see helpers/app.ts).
  const { armAfter, armed } = armedOnTime()
  const { app } = await buildApp(t, { loadShedding: { maxEventLoopDelay: 0, armAfter } })
  await armed
  t.equal(app.underPressure(), false)
  t.equal((await app.inject({ url: '/books', headers: AUTH })).statusCode, 200)
  t.equal((await app.inject({ url: '/readyz' })).statusCode, 200)
})

/** Resolves with the first sample `accept` takes, among those the app is told of from now. */
function samples (): { onSample: NonNullable<LoadSheddingOptions['onSample']>, next: (accept?: (sample: LoadSample) => boolean) => Promise<LoadSample> } {
  const told = new EventEmitter()
  return {
    onSample: (sample) => { told.emit('sample', sample) },
    // The sampler's timer does not hold the process open: the wait does.
    next: async (accept = () => true) => await heldOpen(new Promise((resolve) => {
      const listen = (sample: LoadSample): void => {
        if (!accept(sample)) return
        told.off('sample', listen)
        resolve(sample)
      }
      told.on('sample', listen)
    }))
  }
}

/** Keeps the event loop busy with tasks of `ms` each, as a process under load is, until stopped. */
function load (ms: number): () => void {
  let stopped = false
  const task = (): void => {
    if (stopped) return
    const end = performance.now() + ms
    while (performance.now() < end);
    setImmediate(task)
  }
  setImmediate(task)
  return () => { stopped = true }
}

t.test('an event loop held past the threshold sheds', async (t) => {
  const { onSample, next } = samples()
  const { app } = await buildApp(t, { loadShedding: { maxEventLoopDelay: 15, maxHeapUsedBytes: 0, maxRssBytes: 0, sampleInterval: 100, armAfter: ARMED_AT_START, onSample } })
  // The start (compiling every route's schemas) is load of its own: a quiet sample comes after it.
  await next((sample) => !sample.underPressure)
  // Tasks of 60 ms, one after the other: the histogram's timer fires about 50 ms late each time.
  const stop = load(60)
  const held = await next((sample) => sample.delayMs > 15)
  stop()
  t.ok(held.underPressure, `a mean delay of ${held.delayMs.toFixed(0)} ms is pressure`)
  t.equal((await app.inject({ url: '/books', headers: AUTH })).statusCode, 503)
})

t.test('resident memory past its threshold sheds, from the first sample', async (t) => {
  const { app } = await buildApp(t, { loadShedding: { maxEventLoopDelay: 0, maxHeapUsedBytes: 0, maxRssBytes: 1, armAfter: ARMED_AT_START } })
  t.ok(app.underPressure())
  t.equal((await app.inject({ url: '/books', headers: AUTH })).statusCode, 503)
})

t.test('a health check that throws sheds, as one that answers false does', async (t) => {
  const { app } = await buildApp(t, {
    loadShedding: { healthCheck: async () => { throw new Error('the check could not run') }, maxEventLoopDelay: 0, maxHeapUsedBytes: 0, maxRssBytes: 0, armAfter: ARMED_AT_START }
  })
  t.ok(app.underPressure())
  t.equal((await app.inject({ url: '/books', headers: AUTH })).statusCode, 503)
})

t.test('a close does not wait for a health check in flight, and nothing is measured again after it', async (t) => {
  const { onSample, next } = samples()
  let calls = 0
  let answer: (healthy: boolean) => void = () => {}
  let asked: () => void = () => {}
  const second = new Promise<void>((resolve) => { asked = resolve })
  const { app } = await buildApp(t, {
    loadShedding: {
      // The first call, at the start, answers at once; the second waits for the test.
      healthCheck: async () => {
        if (++calls === 1) return true
        asked()
        return await new Promise<boolean>((resolve) => { answer = resolve })
      },
      maxEventLoopDelay: 0,
      sampleInterval: 100,
      onSample
    }
  })
  await heldOpen(second)
  await app.close()
  const last = next()
  answer(true)
  t.equal((await last).underPressure, false, 'the check in flight still ends in a sample')
  t.equal(calls, 2, 'and no other is asked for')
})
