// Safe to retry: a call sent with an Idempotency-Key is acted on once. A retry with the same key and
// the same input is answered the first call's result without acting again; with other input it is a
// 422; while the first is still being acted on, a 409. A key is the caller's own (its key or token,
// else its address) and the action's: no caller is ever answered another's result. Where the keys
// are kept is an IdempotencyStore: the store (src/store/idempotency.ts), or Redis for an action
// whose work does not commit in the store (src/store/redis-idempotency.ts).
import { createHash } from 'node:crypto'
import { invalidArguments, problem } from './errors.js'

/** How long a key's result is kept: a retry within it is answered from it. */
export const KEPT_SECONDS = 24 * 60 * 60

/**
 * How long a call in progress holds its key: one still unsettled after this is taken for a call
 * whose process ended mid-way (its transaction rolled back with it), and the key may act again.
 */
export const LEASE_SECONDS = 60

/** A key: 1 to 255 visible ASCII characters (a UUID, say). */
const KEY = /^[\x21-\x7e]{1,255}$/

/** A key as each transport publishes it (the header, the tool's argument), with what it says of it. */
export function keySchema (description: string): { type: 'string', minLength: 1, maxLength: 255, pattern: string, description: string } {
  return { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', description }
}

/** The header (and MCP argument) names: what a refusal names. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key'

/** What claiming a key finds. */
export type Claim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'running' }
  | { readonly kind: 'reused' }
  | { readonly kind: 'done', readonly status: number, readonly result: Record<string, unknown> }

export interface IdempotencyStore {
  /** Claims `scope` for a call of `fingerprint` at `now` (ms): the key's first use, or what an earlier one left. */
  readonly claim: (scope: string, fingerprint: string, now: number) => Promise<Claim>
  /** Records the call's result for its retries; `within`: the transaction the work commits in, when it has one. */
  readonly settle: (scope: string, status: number, result: Record<string, unknown>, within?: unknown) => Promise<void>
  /** Forgets a claim whose call did nothing (refused, or failed and rolled back): a retry acts anew. */
  readonly release: (scope: string) => Promise<void>
}

/** The key as sent, or the 400 naming it. */
export function checkedKey (key: unknown, name = IDEMPOTENCY_HEADER): string {
  if (typeof key !== 'string' || !KEY.test(key)) throw invalidArguments({ [name]: ['Must be 1 to 255 visible ASCII characters, such as a UUID.'] })
  return key
}

/** Whose key it is, for which action: the name it is kept under (a digest: the key itself is never stored). */
export function scopeOf (action: string, caller: string, key: string): string {
  return digest([action, caller, key])
}

/** What the call acts with, named: equal only for the same path parameters and body, whatever their fields' order. */
export function fingerprintOf (input: unknown): string {
  return digest(input)
}

/** What a claim that is not the key's first use answers: the first call's result, or the refusal. */
export function answerOf (claim: Claim): { readonly status: number, readonly result: Record<string, unknown> } | undefined {
  if (claim.kind === 'claimed') return undefined
  if (claim.kind === 'running') throw problem('AG_IDEMPOTENCY_IN_PROGRESS', `A call with this ${IDEMPOTENCY_HEADER} is still being acted on: retry shortly for its result.`)
  if (claim.kind === 'reused') throw problem('AG_IDEMPOTENCY_KEY_REUSED', `This ${IDEMPOTENCY_HEADER} was used for a call of this action with other arguments: send a new key for a new call.`)
  return claim
}

function digest (value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value, sortedKeys)).digest('base64url')
}

/** Objects with their keys in order: the same value always writes the same JSON. */
function sortedKeys (_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  // An object's keys are distinct: no two compare equal.
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a < b ? -1 : 1))
}
