// The keys of retried actions in Redis, for actions whose work does not commit in the store (an
// upstream's): replicas that share Redis answer a retry alike even when each has a store of its own.
// A key is one Redis string: `R` and the call's fingerprint and claim time while it runs, `D` and
// its fingerprint, status and result once settled; claiming, taking over and releasing each check
// and change it in one script, so two replicas never both claim it.
import type { Redis } from 'ioredis'
import { problem } from '../core/errors.js'
import { KEPT_SECONDS, LEASE_SECONDS, type Claim, type IdempotencyStore } from '../core/idempotency.js'

/** Sets the key when it is free (claimed), or answers what it holds. */
const CLAIM = `local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`

/** Replaces the key's value only while it is still `ARGV[1]` (a lapsed claim, taken over once). */
const TAKE_OVER = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`

/** The call's result, kept under its claim's fingerprint: a retry with other input is still told so. */
const SETTLE = `local held = redis.call('GET', KEYS[1])
if not held or string.sub(held, 1, 1) ~= 'R' then return 0 end
local fingerprint = string.match(held, '^R\\n([^\\n]*)\\n')
redis.call('SET', KEYS[1], 'D\\n' .. fingerprint .. '\\n' .. ARGV[1] .. '\\n' .. ARGV[2], 'PX', ARGV[3])
return 1`

/** Forgets the key only while its call runs: a settled result is never released. */
const RELEASE = `local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, 1) == 'R' then redis.call('DEL', KEYS[1]) end
return 0`

/** What a call with a key is told while Redis does not answer: nothing was done; retry. */
export const KEYS_UNAVAILABLE = 'Redis, where the keys of retried calls are kept, does not answer right now; nothing was done: retry shortly.'

export function redisIdempotency (client: Pick<Redis, 'eval'>): IdempotencyStore {
  // A key is never dropped quietly: while Redis does not answer, a call with one is refused, unacted (503).
  const redis = {
    eval: async (...args: Parameters<Redis['eval']>): Promise<unknown> => await client.eval(...args).catch((error: unknown) => {
      throw Object.assign(problem('AG_STORE_UNAVAILABLE', KEYS_UNAVAILABLE), { cause: error })
    })
  }
  const key = (scope: string): string => `idempotency:${scope}`
  const kept = KEPT_SECONDS * 1000
  return {
    claim: async (scope, fingerprint, now): Promise<Claim> => {
      const running = `R\n${fingerprint}\n${now}`
      const held = await redis.eval(CLAIM, 1, key(scope), running, kept) as string | null
      if (held === null) return { kind: 'claimed' }
      const [state, heldFingerprint, ...rest] = held.split('\n')
      if (heldFingerprint !== fingerprint) return { kind: 'reused' }
      if (state === 'D') return { kind: 'done', status: Number(rest[0]), result: JSON.parse(rest.slice(1).join('\n')) }
      if (Number(rest[0]) + LEASE_SECONDS * 1000 > now) return { kind: 'running' }
      // Its call ended with its process: this one takes the key over, unless another took it first.
      return await redis.eval(TAKE_OVER, 1, key(scope), held, running, kept) === 1 ? { kind: 'claimed' } : { kind: 'running' }
    },
    settle: async (scope, status, result) => { await redis.eval(SETTLE, 1, key(scope), status, JSON.stringify(result), kept) },
    release: async (scope) => { await redis.eval(RELEASE, 1, key(scope)) }
  }
}
