// The services some tests need (PostgreSQL, Redis): whether they answer, and what a test does when
// one does not. Where GATEWAY_REQUIRE_SERVICES=1 (CI, set by .ci/run) that is a failure; elsewhere
// the test is skipped, loudly. Plus what those tests use: a fresh schema, a fresh key prefix, both stores.
// The clients are loaded when a test first uses one: most files that import this never do.
import { randomBytes } from 'node:crypto'
import type { Redis, RedisOptions } from 'ioredis'
import type pg from 'pg'
import type { Test } from 'tap'
import { openStore, type Store } from '../../src/store/index.js'

export const SERVICES = {
  PostgreSQL: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  Redis: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
} as const

export type Service = keyof typeof SERVICES

interface Outcome {
  fail: (message: string) => unknown
  /** A subtest named for what was skipped, marked skipped: tap counts it and prints its name. */
  skip: (name: string, body: () => void) => unknown
}

/** Whether a missing service fails the tests that need it (CI) rather than skipping them. */
export function servicesRequired (env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env.GATEWAY_REQUIRE_SERVICES === '1'
}

/**
 * True when every service named answers. Otherwise false, after failing `t` where services are
 * required, or else skipping with a line on stderr that no one scrolling past can miss.
 */
export async function needs (t: Outcome, ...services: Service[]): Promise<boolean> {
  for (const service of services) {
    const reason = await unreachable(service)
    if (reason === undefined) continue
    const what = `${service} at ${redacted(SERVICES[service])} does not answer (${reason})`
    if (servicesRequired()) {
      t.fail(`${what}, and GATEWAY_REQUIRE_SERVICES=1 requires it.`)
    } else {
      console.error(`\n*** SKIPPED: ${what}: the tests that need it do not run. Start it, or set GATEWAY_REQUIRE_SERVICES=1 to make this a failure. ***\n`)
      t.skip(`${service} is not running: ${reason}`, () => {})
    }
    return false
  }
  return true
}

/** Why `service` does not answer, or undefined when it does. */
export async function unreachable (service: Service, url: string = SERVICES[service]): Promise<string | undefined> {
  try {
    await (service === 'PostgreSQL' ? pingPostgres(url) : pingRedis(url))
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

/** A schema name no other run uses: `prefix_<pid>_<random>`. */
export function uniqueName (prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`
}

/**
 * A DATABASE_URL for a fresh schema (the gateway creates it at start) and what drops it again.
 * A schema rather than a database: creating one is instant, and needs no rights beyond the schema's.
 */
export function freshSchema (prefix = 'gateway_test'): { url: string, schema: string, drop: () => Promise<void> } {
  const schema = uniqueName(prefix)
  const url = new URL(SERVICES.PostgreSQL)
  url.searchParams.set('schema', schema)
  return { url: url.toString(), schema, drop: async () => { await dropSchema(schema) } }
}

export async function dropSchema (schema: string): Promise<void> {
  await withPostgres(async (client) => { await client.query(`drop schema if exists "${schema}" cascade`) })
}

/** Runs `work` on a connection of its own to the test database, closed after. */
export async function withPostgres<T> (work: (client: pg.Client) => Promise<T>, url: string = SERVICES.PostgreSQL): Promise<T> {
  const { default: { Client } } = await import('pg')
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** A REDIS_URL whose keys all start with a fresh prefix, and what deletes them again. */
export function freshRedisPrefix (): { url: string, prefix: string, clear: () => Promise<void> } {
  const prefix = `${uniqueName('gateway_test')}:`
  const url = new URL(SERVICES.Redis)
  url.searchParams.set('keyPrefix', prefix)
  return { url: url.toString(), prefix, clear: async () => { await clearRedisPrefix(prefix) } }
}

export async function clearRedisPrefix (prefix: string): Promise<void> {
  await withRedis(SERVICES.Redis, { maxRetriesPerRequest: 1 }, async (client) => {
    for (let cursor = '0', first = true; first || cursor !== '0'; first = false) {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      if (keys.length > 0) await client.del(...keys)
      cursor = next
    }
  })
}

/** Runs `work` on a Redis connection of its own, closed after; a failure to connect is thrown by it. */
async function withRedis<T> (url: string, options: RedisOptions, work: (client: Redis) => Promise<T>): Promise<T> {
  const { Redis } = await import('ioredis')
  const client = new Redis(url, { ...options, lazyConnect: true })
  // Its own failures are the answer, thrown by connect() and the commands; the event would only repeat them.
  client.on('error', () => {})
  try {
    await client.connect()
    return await work(client)
  } finally {
    client.disconnect()
  }
}

async function pingPostgres (url: string): Promise<void> {
  await withPostgres(async (client) => { await client.query('select 1') }, url)
}

async function pingRedis (url: string): Promise<void> {
  await withRedis(url, { connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null }, async (client) => { await client.ping() })
}

/** A URL as it may be shown: without its password. */
function redacted (url: string): string {
  const parsed = new URL(url)
  if (parsed.password !== '') parsed.password = '***'
  return parsed.toString()
}

/**
 * `checks` run on a fresh in-memory SQLite store and on PostgreSQL in a fresh schema (skipped as
 * `needs` says), each seeded first, with the SQL each store was sent (`queries`, which a check may empty).
 */
export async function onBothStores (t: Test, seed: (store: Store<any>) => Promise<void>, checks: (t: Test, store: Store<any>, queries: string[], kind: 'sqlite' | 'postgres') => Promise<void>): Promise<void> {
  await t.test('SQLite', async (t) => {
    const queries: string[] = []
    const store = await openStore(':memory:', { onQuery: (text) => { queries.push(text) } })
    t.teardown(() => store.close())
    await seed(store)
    await checks(t, store, queries, 'sqlite')
  })
  await t.test('PostgreSQL', async (t) => {
    if (!await needs(t, 'PostgreSQL')) return
    const { url, drop } = freshSchema()
    const queries: string[] = []
    const store = await openStore(url, { onQuery: (text) => { queries.push(text) } })
    t.teardown(async () => {
      await store.close()
      await drop()
    })
    await seed(store)
    await checks(t, store, queries, 'postgres')
  })
}

/**
 * Runs `work` until one run starts and ends at the same version of the data (`version`, up to 50
 * runs): true once one did. PostgreSQL's version is the whole cluster's, and other test files write
 * to it meanwhile: a claim about what happens while nothing is written is checked over a run in
 * which the version held. A version only moves forward, so one equal at both ends held throughout.
 */
export async function whileUnwritten (version: () => Promise<string>, work: (run: number) => Promise<void>): Promise<boolean> {
  for (let run = 0; run < 50; run++) {
    const before = await version()
    await work(run)
    if (await version() === before) return true
  }
  return false
}
