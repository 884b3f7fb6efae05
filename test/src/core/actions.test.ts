// Actions on an app of their own, built from the public API alone: a failure inside the statement
// rolls everything back and releases the key; a call still in progress holds its key (409); every
// call is audited with its caller, its arguments (hidden fields redacted) and its outcome, and
// counted; a mount that cannot be served safely is refused when it registers.
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import t, { type Test } from 'tap'
import Type from 'typebox'
import { declareRecord, gateway, handle, hidden, scope, storeAction, unrestricted, type ActionMount, type ActionTarget } from '../../../src/index.js'
import { serverOptions } from '../../../src/server.js'
import { KEY } from '../../helpers/app.js'

interface CounterTable { id: number, value: number, note: string }

declare module '../../../src/index.js' {
  interface GatewayDatabase { counters: CounterTable }
}

const Counter = declareRecord('Counter', Type.Object({
  id: handle(Type.Integer({ description: 'The counter.' })),
  value: Type.Integer({ description: 'How far it counted.' }),
  note: hidden(Type.String({ description: 'An internal note.' }))
}), {
  bump: { description: 'Count one more.', when: (row) => row.value < 2 || { code: 'full', reason: 'The counter is full.' }, action: 'bumpCounter' }
})

const BUMP_BODY = Type.Object({ by: Type.Integer({ minimum: 1, maximum: 1 }), secret: Type.Optional(hidden(Type.String({ description: 'Kept from the log.' }))) })

interface Built { app: FastifyInstance, lines: Array<Record<string, any>>, release: () => void }

/** An app with counters and its actions; `extra` mounts more. The `slow` action waits until `release` is called. */
async function counters (t: Test, extra: (app: FastifyInstance) => ActionMount[] = () => []): Promise<Built> {
  const lines: Array<Record<string, any>> = []
  const app = Fastify({ ...serverOptions('info'), logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(async () => { await app.close() })
  let release = (): void => {}
  const released = new Promise<void>((resolve) => { release = resolve })
  await app.register(fp(async (app) => {
    await app.register(gateway, {
      databaseUrl: ':memory:',
      timeZone: 'UTC',
      apiKeys: [KEY],
      loadShedding: { maxEventLoopDelay: 0 },
      setUp: async (db) => {
        await db.schema.createTable('counters').ifNotExists().addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('value', 'integer', (c) => c.notNull()).addColumn('note', 'text', (c) => c.notNull()).execute()
        await db.insertInto('counters').values([{ id: 1, value: 0, note: 'n' }]).onConflict((c) => c.doNothing()).execute()
      }
    })
    const read = async (tx: any, id: number): Promise<CounterTable | undefined> => await tx.selectFrom('counters').selectAll().where('id', '=', id).executeTakeFirst()
    app.mount({
      kind: 'action',
      name: 'bumpCounter',
      url: '/counters/:id/bump',
      summary: 'Count one more',
      params: Type.Object({ id: Type.Integer() }),
      body: BUMP_BODY,
      permissions: [scope('counters:write')],
      result: Counter,
      affords: { declaration: Counter, affordance: 'bump' },
      target: storeAction(app.store, {
        subject: async (tx, { params }: { params: { id: number } }) => await read(tx, params.id),
        act: async (tx, { params }: { params: { id: number } }, row: CounterTable) => {
          await tx.updateTable('counters').set({ value: row.value + 1 }).where('id', '=', params.id).execute()
          return { ...row, value: row.value + 1 }
        }
      })
    })
    app.mount({
      kind: 'action',
      name: 'breakCounter',
      url: '/counters/:id/break',
      summary: 'Write, then fail',
      params: Type.Object({ id: Type.Integer() }),
      body: Type.Object({}),
      permissions: [unrestricted],
      result: Counter,
      target: storeAction(app.store, {
        subject: async (tx, { params }: { params: { id: number } }) => await read(tx, params.id),
        act: async (tx, { params }: { params: { id: number } }) => {
          await tx.updateTable('counters').set({ value: 99, note: 'broken' }).where('id', '=', params.id).execute()
          await tx.insertInto('counters').values({ id: 2, value: 0, note: 'new' }).execute()
          throw new Error('the statement failed')
        }
      })
    })
    const slow: ActionTarget = {
      problems: [],
      readsSubject: false,
      transactional: false,
      run: async (_input, hooks) => {
        await released
        const result = { id: 1, value: 0, note: 'slow' }
        await hooks.settle(result)
        return result
      }
    }
    app.mount({
      kind: 'action',
      name: 'resetCounters',
      url: '/counters/reset',
      summary: 'Every counter back to 0',
      body: Type.Object({}),
      permissions: [unrestricted],
      result: Counter,
      target: storeAction(app.store, {
        act: async (tx) => {
          await tx.updateTable('counters').set({ value: 0 }).execute()
          return await tx.selectFrom('counters').selectAll().where('id', '=', 1).executeTakeFirstOrThrow()
        }
      })
    })
    app.mount({ kind: 'action', name: 'slowCounter', url: '/counters/slow', summary: 'Wait', body: Type.Object({}), permissions: [unrestricted], result: Counter, creates: true, target: slow })
    for (const mount of extra(app)) app.mount(mount)
  }))
  await app.ready()
  return { app, lines, release }
}

const AUTH = { authorization: `Bearer ${KEY}` }

t.test('a failure inside the statement rolls every write back, answers a 500 that says nothing inside, and releases the key', async (t) => {
  const { app, lines } = await counters(t)
  const broken = await app.inject({ method: 'POST', url: '/counters/1/break', payload: {}, headers: { 'idempotency-key': 'k' } })
  t.equal(broken.statusCode, 500)
  t.equal(broken.json().detail, 'The server could not complete the request.')
  t.strictSame(await app.store.db.selectFrom('counters').selectAll().execute(), [{ id: 1, value: 0, note: 'n' }], 'nothing written')
  t.equal((await app.store.db.selectFrom('gateway_idempotency' as any).selectAll().execute()).length, 0, 'the key is released: a retry acts anew')
  t.match(lines.find((line) => line.audit !== undefined)?.audit, { action: 'breakCounter', outcome: 'failed', caller: null })
  const bumped = await app.inject({ method: 'POST', url: '/counters/1/bump', payload: { by: 1 }, headers: AUTH })
  t.equal(bumped.json().value, 1, 'the store still writes')
})

t.test('a call still in progress holds its key: the same key is a 409 to retry shortly, then the result once it is done', async (t) => {
  const { app, release } = await counters(t)
  const first = app.inject({ method: 'POST', url: '/counters/slow', payload: {}, headers: { 'idempotency-key': 'slow-1' } })
  // The first call has claimed its key once its row is in the table.
  const db = app.store.db as any
  // (The table is made when the first key is claimed: until then, no row.)
  while ((await db.selectFrom('gateway_idempotency').selectAll().execute().catch(() => [])).length === 0) await new Promise((resolve) => setImmediate(resolve))
  const again = await app.inject({ method: 'POST', url: '/counters/slow', payload: {}, headers: { 'idempotency-key': 'slow-1' } })
  t.equal(again.statusCode, 409)
  t.equal(again.json().type, 'urn:audience-gateway:problem:idempotency-in-progress')
  t.equal(again.headers['retry-after'], '1')
  release()
  t.equal((await first).statusCode, 201, 'an action that creates answers 201')
  const replayed = await app.inject({ method: 'POST', url: '/counters/slow', payload: {}, headers: { 'idempotency-key': 'slow-1' } })
  t.equal(replayed.statusCode, 201)
  t.equal(replayed.headers['idempotent-replayed'], 'true')
})

t.test('every call is audited (caller, arguments with hidden fields redacted, outcome) and counted by outcome', async (t) => {
  const { app, lines } = await counters(t)
  const send = async (by: unknown, key?: string): Promise<number> => (await app.inject({ method: 'POST', url: '/counters/1/bump', payload: { by, secret: 'p4ss' }, headers: { ...AUTH, 'x-audience': 'agent', ...(key === undefined ? {} : { 'idempotency-key': key }) } })).statusCode
  t.strictSame([await send(1, 'a'), await send(1, 'a'), await send(2), await send(1), await send(1)], [200, 200, 400, 200, 409])
  const audits = lines.filter((line) => line.msg === 'action called')
  t.strictSame(audits.map((line) => line.audit.outcome), ['done', 'replayed', 'refused', 'done', 'unavailable'])
  for (const line of audits) {
    t.equal(typeof line.reqId, 'string', 'each names its request')
    t.match(line.audit.caller, { key: /^[\w-]+$/ })
    t.notMatch(JSON.stringify(line), /p4ss/, 'a hidden field is never logged')
  }
  t.strictSame(audits[0].audit.arguments, { params: { id: 1 }, body: { by: 1, secret: '[hidden]' } })
  t.equal(audits[2].audit.arguments, null, 'arguments that fail their check are not logged')
  const metrics = (await app.inject({ url: '/metrics', headers: AUTH })).body
  t.match(metrics, 'gateway_actions_total{action="bumpCounter",outcome="done"} 2')
  t.match(metrics, 'gateway_actions_total{action="bumpCounter",outcome="replayed"} 1')
  t.match(metrics, 'gateway_actions_total{action="bumpCounter",outcome="unavailable"} 1')
  t.match(metrics, 'gateway_actions_total{action="bumpCounter",outcome="refused"} 1')
})

t.test('an action on no record: its statements, committed together', async (t) => {
  const { app } = await counters(t)
  await app.inject({ method: 'POST', url: '/counters/1/bump', payload: { by: 1 }, headers: AUTH })
  const reset = await app.inject({ method: 'POST', url: '/counters/reset' })
  t.equal(reset.statusCode, 200)
  t.equal(reset.json().value, 0)
})

t.test('an agent is answered the projected result: a hidden field never reaches it', async (t) => {
  const { app } = await counters(t)
  const res = await app.inject({ method: 'POST', url: '/counters/1/bump', payload: { by: 1 }, headers: { ...AUTH, 'x-audience': 'agent' } })
  t.strictSame(res.json(), { id: 1, value: 1, affordances: { bump: { available: true, action: 'bumpCounter' } } })
})

t.test('a mount that cannot be served safely is refused when it registers, naming what to fix', async (t) => {
  const base = { kind: 'action', url: '/x', summary: 'X', body: Type.Object({}), permissions: [unrestricted], result: Counter, target: { problems: [], readsSubject: false, transactional: false, run: async () => ({}) } } as const
  const cases: Array<[Partial<ActionMount>, RegExp]> = [
    [{ name: 'noChecks', permissions: [] }, /declare its permission checks/],
    [{ name: 'openBody', body: Type.Object({ nested: Type.Object({ a: Type.String() }) }) }, /\/body\/nested is an object open to other fields/],
    [{ name: 'unbound', affords: { declaration: Counter, affordance: 'bump' }, target: { problems: [], readsSubject: true, transactional: false, run: async () => ({}) } }, /must name this action \(`action: 'unbound'`\)/],
    [{ name: 'bumpCounter', url: '/y', affords: { declaration: Counter, affordance: 'bump' } }, /its target reads no record to check the affordance 'bump' on; give it a subject/],
    [{ name: 'missing', affords: { declaration: Counter, affordance: 'nope' } }, /declares no affordance 'nope'/],
    [{ name: 'tiny', maxBodyBytes: 1 }, /maxBodyBytes must be an integer of at least 2/],
    [{ name: 'twoOpen', body: Type.Object({ a: Type.Record(Type.String(), Type.String()), b: Type.Array(Type.Object({ c: Type.String() })) }) }, /\/body\/a, \/body\/b are objects open to other fields/]
  ]
  for (const [mount, refusal] of cases) {
    await t.rejects(counters(t, () => [{ ...base, ...mount } as ActionMount]), refusal, String(mount.name))
  }
})

t.test('an affordance naming an action that is not mounted keeps the app from starting', async (t) => {
  const Orphan = declareRecord('Orphan', Type.Object({ id: Type.Integer() }), { go: { description: 'Go.', when: () => true, action: 'goNowhere' } })
  const app = Fastify({ logger: false })
  t.teardown(async () => { await app.close() })
  await app.register(fp(async (app) => {
    await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY] })
    app.mount({ kind: 'list', name: 'listOrphans', url: '/orphans', summary: 'Orphans', declaration: Orphan, source: { count: async () => 0, slice: async () => [], stream: async function * () {} } as any, permissions: [unrestricted] })
  }))
  await t.rejects(async () => { await app.ready() }, /its affordance 'go' names the action 'goNowhere', which is not mounted/)
})
