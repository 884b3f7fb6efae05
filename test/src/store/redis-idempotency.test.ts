// The keys of an upstream action's calls in Redis, shared by replicas that each have a store of
// their own: the same rules as the store's (claimed once, running, reused, settled and answered, a
// lapsed claim taken over by the same input only, a release forgetting only an unsettled claim);
// and while Redis does not answer, a call with a key is refused unacted, never let through.
import { Redis } from 'ioredis'
import t from 'tap'
import { LEASE_SECONDS } from '../../../src/core/idempotency.js'
import { KEYS_UNAVAILABLE, redisIdempotency } from '../../../src/store/redis-idempotency.js'
import { freshRedisPrefix, needs, SERVICES } from '../../helpers/services.js'

const NOW = Date.UTC(2026, 11, 4)
const LEASE = LEASE_SECONDS * 1000

t.test('on Redis', async (t) => {
  if (!await needs(t, 'Redis')) return
  const { prefix, clear } = freshRedisPrefix()
  const client = new Redis(SERVICES.Redis, { keyPrefix: prefix, maxRetriesPerRequest: 1 })
  t.teardown(async () => { await clear(); client.disconnect() })
  const keys = redisIdempotency(client)
  t.strictSame(await keys.claim('s1', 'f1', NOW), { kind: 'claimed' })
  t.strictSame(await keys.claim('s1', 'f1', NOW + 1), { kind: 'running' })
  t.strictSame(await keys.claim('s1', 'f2', NOW + 1), { kind: 'reused' })
  await keys.settle('s1', 201, { id: 'R1', note: 'line\nbreak' })
  t.strictSame(await keys.claim('s1', 'f1', NOW + LEASE * 2), { kind: 'done', status: 201, result: { id: 'R1', note: 'line\nbreak' } })
  t.strictSame(await keys.claim('s1', 'f2', NOW + 2), { kind: 'reused' }, 'a settled key still tells other input apart')
  await keys.release('s1')
  t.strictSame(await keys.claim('s1', 'f1', NOW + 3), { kind: 'done', status: 201, result: { id: 'R1', note: 'line\nbreak' } }, 'a release forgets only an unsettled claim')
  t.strictSame(await keys.claim('s2', 'f1', NOW), { kind: 'claimed' })
  t.strictSame(await keys.claim('s2', 'f1', NOW + LEASE - 1), { kind: 'running' })
  t.strictSame(await keys.claim('s2', 'f1', NOW + LEASE), { kind: 'claimed' }, 'a lapsed claim taken over')
  t.strictSame(await keys.claim('s2', 'f1', NOW + LEASE + 1), { kind: 'running' })
  await keys.release('s2')
  t.strictSame(await keys.claim('s2', 'f9', NOW + LEASE + 2), { kind: 'claimed' }, 'released, the key is new')
  t.strictSame(await keys.claim('s3', 'f1', NOW), { kind: 'claimed' })
  const both = await Promise.all([keys.claim('s3', 'f1', NOW + LEASE), keys.claim('s3', 'f1', NOW + LEASE)])
  t.strictSame(both.map((claim) => claim.kind).sort(), ['claimed', 'running'], 'a lapsed claim taken over once, by two replicas at once')
  await keys.settle('gone', 200, {})
  t.strictSame(await keys.claim('gone', 'f1', NOW), { kind: 'claimed' }, 'a settle without its claim writes nothing')
  t.ok(Number(await client.pttl('idempotency:s1')) > 0, 'every key expires')
})

t.test('while Redis does not answer, a call with a key is refused unacted (503)', async (t) => {
  const keys = redisIdempotency({ eval: async () => { throw new Error('Connection is closed.') } })
  await t.rejects(keys.claim('s', 'f', NOW), { code: 'AG_STORE_UNAVAILABLE', statusCode: 503, message: KEYS_UNAVAILABLE })
})
