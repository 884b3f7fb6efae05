// Redis shared by replicas (two apps here): one rate-limit budget, totals counted once on
// PostgreSQL; and Redis out of reach, at start or mid-run, or connected but not answering, costs no
// request: it is logged once, limits go unenforced, totals are counted in process, and all is
// shared again once it is back.
import { once, type EventEmitter } from 'node:events'
import { connect, createServer, type Socket } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import app, { type AppOptions } from '../../demo/app.js'
import { AGENT, AUTH, KEY } from '../helpers/app.js'
import { tcpProxy } from '../helpers/proxy.js'
import { freshRedisPrefix, freshSchema, needs, SERVICES } from '../helpers/services.js'

interface Replica {
  app: FastifyInstance
  logs: Array<{ level: number, msg: string }>
  queries: string[]
}

const INFO = 30
const WARN = 40

/** One replica: the whole app, its log lines and its SQL kept for the test; closed after `t`. */
async function replica (t: Test, options: Partial<AppOptions>): Promise<Replica> {
  const logs: Replica['logs'] = []
  const queries: string[] = []
  const server = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { logs.push(JSON.parse(line)) } } } })
  await server.register(fp(app), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], onQuery: (text) => { queries.push(text) }, ...options })
  await server.ready()
  t.teardown(() => server.close())
  return { app: server, logs, queries }
}

const said = (replica: Replica, message: RegExp) => replica.logs.filter((line) => message.test(line.msg))
const OUT_OF_REACH = /^Redis out of reach/
const BACK = /^Redis reachable again/

t.test('without REDIS_URL there is no Redis, and each app keeps its own budget', async (t) => {
  const one = await replica(t, { rateLimitMax: 1 })
  const two = await replica(t, { rateLimitMax: 1 })
  t.equal(one.app.redis, undefined)
  t.equal((await one.app.inject({ url: '/books/1', headers: AUTH })).statusCode, 200)
  t.equal((await two.app.inject({ url: '/books/1', headers: AUTH })).statusCode, 200, 'a budget of its own')
  t.equal((await one.app.inject({ url: '/books/1', headers: AUTH })).statusCode, 429)
})

t.test('Redis out of reach at start: the app starts, serves, limits go unenforced, and it is said once', async (t) => {
  const one = await replica(t, { redisUrl: 'redis://127.0.0.1:1', rateLimitMax: 1 })
  for (let i = 0; i < 3; i++) t.equal((await one.app.inject({ url: '/books/1', headers: AUTH })).statusCode, 200)
  // The client retries on its own, failing each time: three more failures, each heard by the plugin first.
  for (let i = 0; i < 3; i++) await once(one.app.redis!, 'error')
  t.equal(said(one, OUT_OF_REACH).length, 1, 'one line, however often the client retries')
  t.equal(said(one, OUT_OF_REACH)[0].level, WARN)
})

t.test('with Redis', async (t) => {
  if (!await needs(t, 'Redis')) return
  /** Keys under a prefix of the subtest's own, deleted after it: budgets and totals start afresh. */
  const fresh = (t: Test) => {
    const redis = freshRedisPrefix()
    t.teardown(redis.clear)
    return redis
  }

  /** A replica whose Redis is reached through a proxy on `port`, limited to 2 requests per key. */
  const behind = async (t: Test, port: number) => {
    const redis = fresh(t)
    const url = new URL(redis.url)
    url.port = String(port)
    // A window no run outlasts: a budget spent is still spent when the test counts on it.
    const one = await replica(t, { redisUrl: url.toString(), rateLimitMax: 2, rateLimitWindow: 600 })
    const get = async (): Promise<number> => (await one.app.inject({ url: '/books/2', headers: AUTH })).statusCode
    return { redis, one, client: one.app.redis!, get }
  }

  t.test('two replicas share one budget per key', async (t) => {
    const redis = fresh(t)
    const replicas = [await replica(t, { redisUrl: redis.url, rateLimitMax: 3 }), await replica(t, { redisUrl: redis.url, rateLimitMax: 3 })]
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await replicas[i % 2].app.inject({ url: '/books/1', headers: AUTH })).statusCode)
    t.strictSame(statuses, [200, 200, 200, 429])
    t.match(await keys(`${redis.prefix}rate-limit:*`), [/^gateway_test_\d+_[0-9a-f]+:rate-limit:key:[0-9a-f]{12}$/], 'under the URL\'s prefix, by the key\'s fingerprint')
  })

  t.test('on SQLite, totals stay in process: its version means nothing to another process', async (t) => {
    const redis = fresh(t)
    const one = await replica(t, { redisUrl: redis.url })
    t.equal((await one.app.inject({ url: '/ledger', headers: AGENT })).json().total_entries, 1240)
    t.strictSame(await keys(`${redis.prefix}count:*`), [])
  })

  t.test('Redis lost mid-run and back: served throughout, each change said once, then shared again', async (t) => {
    const proxy = await tcpProxy(new URL(SERVICES.Redis))
    t.teardown(proxy.close)
    const { redis, one, client, get } = await behind(t, proxy.port)
    t.strictSame([await get(), await get(), await get()], [200, 200, 429], 'enforced while Redis answers')
    // Listening before the cause: the client may fail, or come back, before the proxy's promise settles.
    const lost = once(client, 'error')
    await proxy.cut()
    await lost
    t.equal(said(one, OUT_OF_REACH).length, 1, 'said as the client first fails')
    t.strictSame([await get(), await get(), await get()], [200, 200, 200], 'served, unlimited, while it is out of reach')
    const back = next(client, 'ready')
    await proxy.restore()
    await back
    t.equal(said(one, BACK).length, 1, 'said as the client is ready again')
    // The budget spent before the cut still holds in Redis: a fresh one shows the limit is enforced.
    await redis.clear()
    t.strictSame([await get(), await get(), await get()], [200, 200, 429], 'enforced again once it is back')
    t.equal(said(one, OUT_OF_REACH).length, 1)
    t.equal(said(one, BACK).length, 1)
  })

  t.test('Redis connected but not answering, then answering again: served throughout, each change said once', async (t) => {
    const proxy = await stallingProxy(new URL(SERVICES.Redis))
    t.teardown(proxy.close)
    const { redis, one, client, get } = await behind(t, proxy.port)
    t.strictSame([await get(), await get(), await get()], [200, 200, 429], 'enforced while Redis answers')
    const dropped = next(client, 'error')
    proxy.stall()
    // Its command times out (the request is served uncounted); the silent connection is then dropped.
    t.equal(await get(), 200, 'served, unlimited, though Redis does not answer')
    await dropped
    t.match(said(one, OUT_OF_REACH), [{ level: WARN, err: { message: /^Socket timeout/ } }], 'said once, as the client gives the connection up')
    t.strictSame([await get(), await get(), await get()], [200, 200, 200], 'served while it reconnects to a Redis that does not answer')
    // Its attempts to reconnect fail too, each heard by the plugin first.
    for (let i = 0; i < 2; i++) await next(client, 'error')
    t.equal(said(one, OUT_OF_REACH).length, 1, 'one line, however often the client retries')
    const back = next(client, 'ready')
    proxy.answer()
    await back
    t.match(said(one, BACK), [{ level: INFO }], 'said once, as the client is ready again')
    await redis.clear()
    t.strictSame([await get(), await get(), await get()], [200, 200, 429], 'enforced again once it answers')
    t.equal(said(one, OUT_OF_REACH).length, 1)
    t.equal(said(one, BACK).length, 1)
  })

  t.test('on PostgreSQL', async (t) => {
    if (!await needs(t, 'PostgreSQL')) return
    const schema = freshSchema()
    t.teardown(schema.drop)

    t.test('two replicas count a version of the data once between them', async (t) => {
      const redis = fresh(t)
      const replicas = [await replica(t, { databaseUrl: schema.url, redisUrl: redis.url }), await replica(t, { databaseUrl: schema.url, redisUrl: redis.url })]
      const version = replicas[0].app.store.dataVersion
      const counted = (one: Replica) => one.queries.filter((text) => /count\(\*\)/i.test(text)).length
      // Other test files write to the same cluster: a run counts only if the version held throughout.
      // Each run asks a count of its own (a lower bound before every entry, a second later each run):
      // a total counted in a run the version did not hold for is never met again, here or in Redis.
      let held = false
      let runs = 0
      for (; runs < 50 && !held; runs++) {
        const url = `/ledger?posted_at_min=${new Date(Date.UTC(2000, 0, 1, 0, 0, runs)).toISOString()}`
        const before = await version()
        for (const one of replicas) one.queries.length = 0
        t.equal((await replicas[0].app.inject({ url, headers: AGENT })).json().total_entries, 1240)
        // The first replica stores its total without waiting for Redis; its client answers in order,
        // so once a PING sent after that write is answered, the write has landed.
        await replicas[0].app.redis!.ping()
        t.equal((await replicas[1].app.inject({ url, headers: AGENT })).json().total_entries, 1240)
        held = await version() === before
      }
      t.ok(held, 'a run with no write anywhere in the cluster')
      t.strictSame(replicas.map(counted), [1, 0], 'the second replica was given the first one\'s total')
      t.equal((await keys(`${redis.prefix}count:*`)).length, runs, 'one entry per count')
    })

    t.test('with Redis out of reach, each replica counts for itself, and says why', async (t) => {
      const one = await replica(t, { databaseUrl: schema.url, redisUrl: 'redis://127.0.0.1:1' })
      t.equal((await one.app.inject({ url: '/ledger', headers: AGENT })).json().total_entries, 1240)
      t.match(said(one, /^Redis failed a count cache command/), [{ level: WARN }])
    })
  })
})

/** The keys matching `pattern`, read with a client of its own (no prefix). */
async function keys (pattern: string): Promise<string[]> {
  const client = new Redis(SERVICES.Redis)
  try {
    return await client.keys(pattern)
  } finally {
    client.disconnect()
  }
}

/**
 * A proxy to `target` that can stall, as a stopped or stuck Redis does: while stalled, connections
 * are still accepted and what clients send is taken, but none of it reaches Redis, so nothing is
 * answered; once it answers again, what was withheld goes on, in order, and is answered.
 */
async function stallingProxy (target: URL): Promise<{ port: number, stall: () => void, answer: () => void, close: () => Promise<void> }> {
  const links = new Map<Socket, Socket>()
  let stalled = false
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname)
    links.set(client, upstream)
    // Either side gone (the client giving a silent connection up, say) takes the other with it.
    for (const socket of [client, upstream]) {
      socket.on('error', () => {})
      socket.on('close', () => {
        links.delete(client)
        client.destroy()
        upstream.destroy()
      })
    }
    upstream.pipe(client)
    if (stalled) client.pause()
    else client.pipe(upstream)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as { port: number }).port,
    stall: () => {
      stalled = true
      for (const [client, upstream] of links) {
        client.unpipe(upstream)
        client.pause()
      }
    },
    answer: () => {
      stalled = false
      for (const [client, upstream] of links) client.pipe(upstream)
    },
    close: async () => {
      for (const client of links.keys()) client.destroy()
      server.close()
      await once(server, 'close')
    }
  }
}

/** The next `event` of `emitter`, whatever it emits meanwhile (`once` would reject on an 'error'). */
async function next (emitter: EventEmitter, event: string): Promise<void> {
  await new Promise<void>((resolve) => { emitter.once(event, () => { resolve() }) })
}
