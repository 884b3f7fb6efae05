// The action flow on its own (no transport): what registration refuses, who the audit names (a
// key, a token's subject, nobody), a key whose release fails, a target that never settles, and a
// record missing where no path parameter names it; an action as an MCP tool, and what it refuses.
import t from 'tap'
import Type from 'typebox'
import { compileAction, type ActionMount, type ActionTarget } from '../../../src/core/action.js'
import type { ActSettings } from '../../../src/core/act.js'
import type { Claim, IdempotencyStore } from '../../../src/core/idempotency.js'
import { declareRecord, handle, unrestricted } from '../../../src/index.js'
import { actionToolOf } from '../../../src/mcp/action-tools.js'
import type { Principal } from '../../../src/permissions.js'

const Done = declareRecord('Done', Type.Object({ id: handle(Type.Integer()), note: Type.String() }))

/** Keys that every claim finds new, and whose release fails when told to. */
function keys (options: { releaseFails?: boolean } = {}): IdempotencyStore & { claimed: string[] } {
  const claimed: string[] = []
  return {
    claimed,
    claim: async (scope): Promise<Claim> => { claimed.push(scope); return { kind: 'claimed' } },
    settle: async () => {},
    release: async () => { if (options.releaseFails === true) throw new Error('the store is gone') }
  }
}

function target (run: ActionTarget['run'], readsSubject = false): ActionTarget {
  return { problems: [], readsSubject, transactional: false, run }
}

function action (extra: Partial<ActionMount> = {}): ActionMount {
  return { kind: 'action', name: 'doIt', url: '/do', summary: 'Do it', body: Type.Object({}), permissions: [unrestricted], result: Done, target: target(async (_input, hooks) => { const done = { id: 1, note: 'done' }; await hooks.settle(done); return done }), ...extra }
}

function settings (idempotency: IdempotencyStore = keys(), outcomes: string[] = []): ActSettings {
  return { idempotency, onOutcome: (_action, outcome) => { outcomes.push(outcome) } }
}

const silent = { warn: () => {} }

t.test('registration refuses a read\'s method, and an action with nowhere to keep its keys', async (t) => {
  t.throws(() => compileAction(action({ method: 'GET' as never }), { timeZone: 'UTC', acting: settings() }), /its method must be one of POST, PUT, PATCH, DELETE; a read is a mount/)
  t.throws(() => compileAction(action(), { timeZone: 'UTC' }), /keeps no Idempotency-Keys for it/)
})

t.test('the audit names the caller: a key, a token\'s issuer and subject (its fingerprint without one), nobody', async (t) => {
  const lines: Array<Record<string, any>> = []
  const audit = { info: (details: object) => { lines.push(details) } }
  const resource = compileAction(action(), { timeZone: 'UTC', acting: settings() })
  const key: Principal = { keyId: 'k1', scopes: 'all' }
  const token: Principal = { keyId: 't1', scopes: [], issuer: 'https://issuer.test', claims: { sub: 'ada' } }
  const anonymousToken: Principal = { keyId: 't2', scopes: [], issuer: 'https://issuer.test', claims: {} }
  for (const principal of [key, token, anonymousToken, undefined]) await resource.act({ audience: 'plain', params: {}, body: undefined, principal, audit })
  t.strictSame(lines.map((line) => line.audit.caller), [{ key: 'k1' }, { issuer: 'https://issuer.test', subject: 'ada' }, { issuer: 'https://issuer.test', subject: 't2' }, null])
})

t.test('keys are the caller\'s own: a key\'s, else the address it calls from', async (t) => {
  const kept = keys()
  const resource = compileAction(action(), { timeZone: 'UTC', acting: settings(kept) })
  await resource.act({ audience: 'plain', params: {}, body: {}, idempotencyKey: 'same', principal: { keyId: 'k1', scopes: 'all' } })
  await resource.act({ audience: 'plain', params: {}, body: {}, idempotencyKey: 'same', client: 'address:127.0.0.1' })
  await resource.act({ audience: 'plain', params: {}, body: {}, idempotencyKey: 'same' })
  t.equal(new Set(kept.claimed).size, 3, 'three callers, three keys')
})

t.test('a failed call whose key cannot be released says so in the log, and fails with its own failure', async (t) => {
  const warned: object[] = []
  const failing = action({ target: target(async () => { throw new Error('the work failed') }) })
  const resource = compileAction(failing, { timeZone: 'UTC', acting: settings(keys({ releaseFails: true })) })
  await t.rejects(resource.act({ audience: 'plain', params: {}, body: {}, idempotencyKey: 'k', log: { warn: (details) => { warned.push(details) } } }), /the work failed/)
  t.match(warned, [{ err: { message: 'the store is gone' } }])
  await t.rejects(resource.act({ audience: 'plain', params: {}, body: {}, idempotencyKey: 'k', log: silent }), /the work failed/, 'a log is not needed')
  await t.rejects(resource.act({ audience: 'plain', params: {}, body: {}, idempotencyKey: 'k' }), /the work failed/)
})

t.test('a target that returns without settling is a defect, answered as a failure', async (t) => {
  const outcomes: string[] = []
  const resource = compileAction(action({ target: target(async () => ({ id: 1, note: 'unsettled' })) }), { timeZone: 'UTC', acting: settings(keys(), outcomes) })
  await t.rejects(resource.act({ audience: 'agent', params: {}, body: {} }), /returned without settling its result; it must call settle before it commits/)
  t.strictSame(outcomes, ['failed'])
})

t.test('a record missing where no path parameter names it is no record for this call', async (t) => {
  const resource = compileAction(action({ target: target(async (_input, hooks) => { hooks.check(undefined); return {} }, true) }), { timeZone: 'UTC', acting: settings() })
  await t.rejects(resource.act({ audience: 'plain', params: {}, body: {} }), { code: 'AG_NOT_FOUND', message: 'No record matches this call.' })
  t.ok(resource.problems.includes('AG_NOT_FOUND'), 'published, as its target reads a record')
})

t.test('as an MCP tool: one object of arguments, a name taken twice refused, a failure told and answered as a result', async (t) => {
  const params = Type.Object({ id: Type.Integer() })
  const clash = (body: ActionMount['body']): unknown => actionToolOf(compileAction(action({ url: '/do/:id', params, body }), { timeZone: 'UTC', acting: settings() }))
  t.throws(() => clash(Type.Object({ id: Type.String() })), /id is both a body field and a path parameter/)
  t.throws(() => clash(Type.Object({ idempotency_key: Type.String() })), /idempotency_key is both a body field and a path parameter \(or the tool's idempotency_key\)/)
  const failures: unknown[] = []
  const broken = actionToolOf(compileAction(action({ target: target(async () => { throw new Error('a defect') }) }), { timeZone: 'UTC', acting: settings() }))
  const result = await broken.call({}, (error) => { failures.push(error) }, { requestId: 'r1', log: { warn: () => {}, info: () => {} } })
  t.equal(result.isError, true)
  t.match(result.content[0].text, /^Internal Server Error \(500\): The server could not complete the request\./)
  t.equal(failures.length, 1, 'the defect is told, for the log')
  const quiet = actionToolOf(compileAction(action(), { timeZone: 'UTC', acting: settings() }))
  t.strictSame((await quiet.call({}, () => {})).structuredContent, { id: 1, note: 'done' }, 'a call without a context, nor an audit line')
})

t.test('outside the store, a result whose key cannot be recorded is answered all the same (the work is done), and the log says a retry may act again', async (t) => {
  const warned: object[] = []
  const shared: IdempotencyStore = { claim: async () => ({ kind: 'claimed' }), settle: async () => { throw new Error('Redis is gone') }, release: async () => {} }
  const resource = compileAction(action(), { timeZone: 'UTC', acting: { idempotency: keys(), sharedIdempotency: shared } })
  const acted = await resource.act({ audience: 'plain', params: {}, body: {}, idempotencyKey: 'k', log: { warn: (details) => { warned.push(details) } } })
  t.strictSame(acted, { status: 200, body: { id: 1, note: 'done' }, replayed: false })
  t.match(warned, [{ err: { message: 'Redis is gone' } }])
  t.ok(resource.openWorld, 'a target outside the store: an open-world tool')
})
