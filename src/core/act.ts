// The one flow every transport calls for an action, as serve.ts is for reads: from a compiled
// action (action.ts), an audience, path parameters and a body to the result to send. It checks the
// input, answers a retry from its key (idempotency.ts), lets the target act once, checking the
// bound affordance again on the record as it is, and audits the call, whatever its outcome.
import type { Audience } from '../audience.js'
import type { Principal } from '../permissions.js'
import { projectPayload } from '../projection/index.js'
import type { ActionContext, ActionPlan } from './action.js'
import { actionUnavailable, problem } from './errors.js'
import { answerOf, checkedKey, fingerprintOf, scopeOf, type IdempotencyStore } from './idempotency.js'
import { problemOf } from './problem.js'
import { describe } from './serve.js'
import { inSpan, inSpanSync } from './spans.js'

/** One call, as a transport received it: who calls and reads the result, the path parameters and the body, unchecked. */
export interface ActionCall extends ActionContext {
  readonly audience: Audience
  readonly params: Readonly<Record<string, unknown>>
  readonly body: unknown
  /** The caller's key for this call, as sent: a retry with it is answered, not acted on. */
  readonly idempotencyKey?: unknown
  /** What the transport calls the key, as a refusal of it names it (default the header's name). */
  readonly keyName?: string
  /** The log an audit line goes to: the request's. */
  readonly audit?: AuditLog
}

export interface AuditLog {
  info: (details: object, message: string) => void
}

/** How a call ended: acted on, answered from an earlier call, refused because the affordance no longer held, refused otherwise, or failed. */
export type ActionOutcome = 'done' | 'replayed' | 'unavailable' | 'refused' | 'failed'

export const ACTION_OUTCOMES: readonly ActionOutcome[] = ['done', 'replayed', 'unavailable', 'refused', 'failed']

/** What to send: the status and the result in the caller's audience, and whether it is an earlier call's. */
export interface Acted {
  readonly status: number
  readonly body: Record<string, unknown>
  readonly replayed: boolean
}

/** What the app gives every action: where keys are kept, and who is told each outcome (metrics). */
export interface ActSettings {
  /** Keys kept in the store: a transactional target's result is settled in its own transaction. */
  readonly idempotency: IdempotencyStore
  /** Keys every replica shares (Redis), for the other targets; absent, theirs are kept in the store too. */
  readonly sharedIdempotency?: IdempotencyStore
  readonly onOutcome?: (action: string, outcome: ActionOutcome) => void
}

/** What the audit log says of the body's hidden fields. */
export const REDACTED = '[hidden]'

export async function act (plan: ActionPlan, call: ActionCall, settings: ActSettings): Promise<Acted> {
  // Whatever the outcome, the call is audited and counted, with its arguments once they are checked.
  const seen: { args?: unknown } = {}
  return await acted(plan, call, settings, seen).then((answer) => {
    audited(plan.name, call, settings, answer.replayed ? 'replayed' : 'done', seen.args)
    return answer
  }, (error: unknown) => {
    audited(plan.name, call, settings, outcomeOf(error), seen.args)
    throw error
  })
}

/** The call checked, answered from its key or acted on once; `seen` told its arguments, for the audit. */
async function acted (plan: ActionPlan, call: ActionCall, settings: ActSettings, seen: { args?: unknown }): Promise<Acted> {
  // The key's problem, if any, named in the one 400 with the arguments'.
  const problems = new Map<string, string[]>()
  const key = call.idempotencyKey === undefined ? undefined : keyOf(call.idempotencyKey, call.keyName, problems)
  const input = plan.check(call.params, call.body, problems)
  seen.args = redacted(input, plan.hiddenFields)
  const scope = key === undefined ? undefined : scopeOf(plan.name, callerOf(call), key)
  const keys = plan.target.transactional ? settings.idempotency : settings.sharedIdempotency ?? settings.idempotency
  const fingerprint = fingerprintOf(input)
  if (scope !== undefined) {
    const earlier = answerOf(await keys.claim(scope, fingerprint, Date.now()))
    if (earlier !== undefined) return { status: earlier.status, body: inAudience(plan, call.audience, earlier.result), replayed: true }
  }
  let presented: Record<string, unknown> | undefined
  await inSpan('action', async () => await plan.target.run(input, {
    // The caller's key and this input: a retry of the same call is the same key upstream, another call another.
    key: scope === undefined ? undefined : fingerprintOf([scope, fingerprint]),
    check: (row) => { checkRow(plan, call.params, row) },
    settle: async (result, within) => {
      presented = plan.present(result)
      if (scope === undefined) return
      // In the store's transaction, a failure undoes the work with it. Elsewhere the work is done:
      // its result is answered, and a retry after the claim's lease may act again (said in the log).
      if (plan.target.transactional) await keys.settle(scope, plan.status, presented, within)
      else await keys.settle(scope, plan.status, presented).catch((error: unknown) => { call.log?.warn({ err: error }, 'could not record the result of a call with an idempotency key: a retry after its lease may act again') })
    }
  }, call)).catch(async (error: unknown) => {
    // Nothing was done: a retry with the key acts anew.
    if (scope !== undefined) await keys.release(scope).catch((released: unknown) => { call.log?.warn({ err: released }, 'could not release an idempotency key') })
    throw error
  })
  if (presented === undefined) throw new Error(`Action '${plan.name}': its target returned without settling its result; it must call settle before it commits.`)
  return { status: plan.status, body: inAudience(plan, call.audience, presented), replayed: false }
}

/**
 * A call refused before it reached the flow (its caller's credentials, its rate, its body's size or
 * media type), audited and counted as every call is: with no arguments, which were never read.
 */
export function refusedEarly (action: string, call: Pick<ActionCall, 'principal' | 'audit'>, settings: ActSettings, error: unknown): void {
  audited(action, call, settings, outcomeOf(error), undefined)
}

/** The audit line and the count of one call, whatever its outcome. */
function audited (action: string, call: Pick<ActionCall, 'principal' | 'audit'>, settings: ActSettings, outcome: ActionOutcome, args: unknown): void {
  settings.onOutcome?.(action, outcome)
  call.audit?.info({ audit: { action, caller: identityOf(call.principal), arguments: args ?? null, outcome } }, 'action called')
}

/** The key as sent, or undefined with its problem added to `problems`. */
function keyOf (sent: unknown, name: string | undefined, problems: Map<string, string[]>): string | undefined {
  try {
    return checkedKey(sent, name)
  } catch (error) {
    for (const [argument, messages] of Object.entries((error as { errors: Record<string, string[]> }).errors)) problems.set(argument, messages)
    return undefined
  }
}

/** The record the target read, checked: none is a 404, an affordance that no longer holds a 409 with its code and reason. */
function checkRow (plan: ActionPlan, params: Readonly<Record<string, unknown>>, row: unknown): void {
  if (row === undefined) throw problem('AG_NOT_FOUND', `No record matches ${Object.keys(params).length === 0 ? 'this call' : describe(params)}.`)
  if (plan.affordance === undefined) return
  const verdict = plan.affordance.when(row)
  if (verdict !== true) throw actionUnavailable(plan.name, verdict)
}

function inAudience (plan: ActionPlan, audience: Audience, presented: Record<string, unknown>): Record<string, unknown> {
  if (audience === 'plain') return presented
  return inSpanSync('projection', () => projectPayload(presented, plan.projection) as Record<string, unknown>)
}

/** Whose keys these are: the caller's key or token, else the address it calls from. */
function callerOf (call: ActionCall): string {
  return call.principal === undefined ? `client:${call.client ?? 'unknown'}` : `principal:${call.principal.keyId}`
}

/** Who called, as the audit log names them: the key, or the token's issuer and subject; never a secret. */
function identityOf (principal: Principal | undefined): Record<string, unknown> | null {
  if (principal === undefined) return null
  if (principal.issuer === undefined) return { key: principal.keyId }
  const subject = principal.claims?.sub
  return { issuer: principal.issuer, subject: typeof subject === 'string' ? subject : principal.keyId }
}

/** The input as the audit log keeps it: the body's hidden fields replaced by REDACTED. */
function redacted (input: { params: unknown, body: Record<string, unknown> }, hidden: ReadonlySet<string>): unknown {
  if (hidden.size === 0) return input
  const body: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(input.body)) body[name] = hidden.has(name) ? REDACTED : value
  return { params: input.params, body }
}

function outcomeOf (error: unknown): ActionOutcome {
  const { status, body } = problemOf(error)
  if (body.type.endsWith(':action-unavailable')) return 'unavailable'
  return status < 500 ? 'refused' : 'failed'
}
