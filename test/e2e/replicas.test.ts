// Two replicas as deployed: two real gateway processes on their own ports, one PostgreSQL schema,
// one Redis prefix. A client alternating between them cannot tell them apart: the same request gets
// the same body and ETag from either (for both audiences, a validator from one is honoured by the
// other), and a key has one rate-limit budget between them.
import t from 'tap'
import { freshRedisPrefix, freshSchema, needs } from '../helpers/services.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { until } from '../helpers/until.js'

const KEY = 'replica-key-0123456789abcdef'
const BUDGET_KEY = 'budget-key-0123456789abcdef'
/** Small, so the budget test reaches it; enough for the requests the other tests make per key. */
const RATE_LIMIT_MAX = 40

const PLAIN = { authorization: `Bearer ${KEY}` }
const AGENT = { ...PLAIN, 'x-audience': 'agent' }

/** Each request asked of both replicas: every one carries an ETag (a plain list's names the cluster's data). */
const REQUESTS: ReadonlyArray<{ url: string, headers: Record<string, string> }> = [
  { url: '/books', headers: PLAIN },
  { url: '/books?page=2&limit=2', headers: AGENT },
  { url: '/books/1', headers: PLAIN },
  { url: '/books/1', headers: AGENT },
  { url: '/books/1/text', headers: PLAIN },
  { url: '/books/1/text?start_line=5&end_line=9', headers: AGENT },
  { url: '/invoices', headers: PLAIN },
  { url: '/invoices', headers: AGENT },
  { url: '/ledger', headers: {} },
  { url: '/ledger?offset=617&limit=33', headers: { 'x-audience': 'agent' } }
]

// Two processes compiling TypeScript as they start, on what may be a busy machine.
t.setTimeout(180_000)

if (await needs(t, 'PostgreSQL', 'Redis')) {
  const schema = freshSchema()
  const redis = freshRedisPrefix()
  t.teardown(async () => {
    await schema.drop()
    await redis.clear()
  })
  const env = {
    API_KEYS: `${KEY},${BUDGET_KEY}`,
    DATABASE_URL: schema.url,
    REDIS_URL: redis.url,
    RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
    RATE_LIMIT_WINDOW: '600',
    TIME_ZONE: 'Europe/Paris'
  }
  // Started together on an empty schema: one sets the catalogue up, the other waits for it.
  const replicas = await Promise.all([startServer(env), startServer(env)])
  t.teardown(() => { for (const replica of replicas) replica.child.kill('SIGKILL') })
  await Promise.all(replicas.map(ready))

  t.test('the replicas are two processes on two ports', async (t) => {
    t.not(replicas[0].url, replicas[1].url)
    t.not(replicas[0].child.pid, replicas[1].child.pid)
  })

  t.test('either replica gives the same body and ETag for the same request, both audiences', async (t) => {
    for (const { url, headers } of REQUESTS) {
      const [first, second] = [await get(replicas[0], url, headers), await get(replicas[1], url, headers)]
      const what = `${url} (${headers['x-audience'] ?? 'plain'})`
      t.strictSame([first.status, second.status], [200, 200], what)
      t.equal(second.body, first.body, `${what}: the same body`)
      t.equal(second.etag, first.etag, `${what}: the same ETag`)
      t.ok(first.etag, `${what}: an ETag`)
    }
  })

  t.test('an ETag from one replica is a validator the other honours', async (t) => {
    for (const { url, headers } of REQUESTS) {
      const { etag } = await get(replicas[0], url, headers)
      const revalidated = await get(replicas[1], url, { ...headers, 'if-none-match': etag! })
      t.equal(revalidated.status, 304, url)
    }
  })

  t.test('a key has one budget between the replicas', async (t) => {
    const headers = { authorization: `Bearer ${BUDGET_KEY}` }
    const answers: Array<[number, string | null]> = []
    for (let i = 0; i <= RATE_LIMIT_MAX; i++) {
      const response = await served(replicas[i % 2], '/books/2', headers)
      answers.push([response.status, response.headers.get('x-ratelimit-remaining')])
      await response.arrayBuffer()
    }
    const expected: Array<[number, string | null]> = Array.from({ length: RATE_LIMIT_MAX }, (_, i) => [200, String(RATE_LIMIT_MAX - 1 - i)])
    t.strictSame(answers, [...expected, [429, '0']], 'counted down across both, then refused by whichever is asked')
    const other = await served(replicas[(RATE_LIMIT_MAX + 1) % 2], '/books/2', headers)
    t.equal(other.status, 429, 'by the other one too')
    t.equal((await served(replicas[0], '/books/2', PLAIN)).status, 200, 'another key is not held back')
  })

  t.test('both replicas close cleanly on SIGTERM', async (t) => {
    for (const replica of replicas) replica.child.kill('SIGTERM')
    t.strictSame(await Promise.all(replicas.map((replica) => replica.exited)), [0, 0])
  })
}

/** GET with the body read whole, and the ETag. */
async function get (replica: RunningServer, url: string, headers: Record<string, string>): Promise<{ status: number, body: string, etag: string | undefined }> {
  const response = await served(replica, url, headers)
  return { status: response.status, body: await response.text(), etag: response.headers.get('etag') ?? undefined }
}

/**
 * GET, asked again while the replica sheds load (a 503 with Retry-After, given before the rate
 * limit counts the request): on a busy test machine, a moment's lag is not what is tested here.
 * Whether another process is shedding is known only by asking it.
 */
async function served (replica: RunningServer, url: string, headers: Record<string, string>): Promise<Response> {
  return await until(async () => {
    const response = await fetch(replica.url + url, { headers })
    if (response.status !== 503 || response.headers.get('retry-after') === null) return response
    await response.arrayBuffer()
    return undefined
  }, `${replica.url}${url} is not shed`)
}

/** Waits for readiness: the store answers and the process does not shed load. */
async function ready (replica: RunningServer): Promise<void> {
  await until(async () => {
    const response = await fetch(`${replica.url}/readyz`)
    await response.arrayBuffer()
    return response.status === 200
  }, `${replica.url} is ready`)
}
