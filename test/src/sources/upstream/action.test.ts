// An action on an upstream, with a scripted client: the record it acts on read and checked first,
// the body sent as mapped (with the gateway's key, when the call has one), the answer read as the
// declared record (unwrapped from its field), a 404 the action's, an answer the record does not
// admit refused.
import t from 'tap'
import Type from 'typebox'
import type { ActionHooks } from '../../../../src/core/action.js'
import { declareRecord, handle } from '../../../../src/index.js'
import type { RecordSource } from '../../../../src/sources/source.js'
import { upstreamAction } from '../../../../src/sources/upstream/action.js'
import type { UpstreamClient, UpstreamSendOptions } from '../../../../src/sources/upstream/client.js'

const ORIGIN = 'http://upstream.test'
const Order = declareRecord('Order', Type.Object({ id: handle(Type.String()), quantity: Type.Integer() }))

interface Sent { method: string, url: string, body: unknown, options: UpstreamSendOptions }

/** A client answering every call with `answer` (undefined: the upstream's 404), and remembering what was sent. */
function client (answer: unknown): UpstreamClient & { sent: Sent[] } {
  const sent: Sent[] = []
  return {
    origin: ORIGIN,
    name: 'orders',
    sent,
    get: async () => { throw new Error('an action reads through its subject') },
    send: async (method, target, body, options = {}) => {
      const url = new URL(target, ORIGIN)
      sent.push({ method, url: url.pathname, body, options })
      return answer === undefined ? undefined : { url, status: 201, headers: {}, body: answer }
    },
    close: async () => {}
  }
}

/** Hooks that record what was checked and settled. */
function hooks (key?: string): ActionHooks<unknown, unknown> & { checked: unknown[], settled: unknown[] } {
  const checked: unknown[] = []
  const settled: unknown[] = []
  return {
    checked,
    settled,
    ...(key === undefined ? {} : { key }),
    check: (row) => {
      checked.push(row)
      if (row === undefined) throw Object.assign(new Error('no record'), { code: 'AG_NOT_FOUND' })
    },
    settle: async (result) => { settled.push(result) }
  }
}

const input = { params: { sku: 'S1' }, body: { quantity: 2 } }

t.test('the subject read and checked first; the body as mapped, with the key; the answer unwrapped and settled', async (t) => {
  const upstream = client({ order: { id: 'O1', quantity: 2 } })
  const subject: RecordSource<Record<string, unknown>, { sku: unknown }> = { problems: ['AG_UPSTREAM_FAILED'], one: async ({ sku }) => ({ sku }) }
  const target = upstreamAction({ client: upstream, method: 'PUT', path: ({ params }) => `/orders/${String(params.sku)}`, body: ({ body }) => ({ wanted: body.quantity }), declaration: Order, item: 'order', subject })
  t.equal(target.readsSubject, true)
  const seen = hooks('digest')
  t.strictSame(await target.run(input, seen, {}), { id: 'O1', quantity: 2 })
  t.strictSame(seen.checked, [{ sku: 'S1' }])
  t.strictSame(seen.settled, [{ id: 'O1', quantity: 2 }])
  t.match(upstream.sent, [{ method: 'PUT', url: '/orders/S1', body: { wanted: 2 }, options: { idempotencyKey: 'digest', notFound: 'absent' } }])
})

t.test('the upstream\'s 404 is the action\'s; an answer the record does not admit is refused, never settled', async (t) => {
  const target = upstreamAction({ client: client(undefined), path: () => '/orders', declaration: Order })
  t.equal(target.readsSubject, false)
  await t.rejects(target.run(input, hooks(), {}), { code: 'AG_NOT_FOUND' })
  const wrong = upstreamAction({ client: client({ id: 'O1', quantity: 'two' }), path: () => '/orders', declaration: Order, log: { warn: () => {} } })
  const seen = hooks()
  await t.rejects(wrong.run(input, seen, {}), { code: 'AG_UPSTREAM_FAILED' })
  t.strictSame(seen.settled, [])
  const sent = client({ id: 'O2', quantity: 2 })
  await upstreamAction({ client: sent, path: () => '/orders', declaration: Order }).run(input, hooks(), {})
  t.match(sent.sent, [{ method: 'POST', body: { quantity: 2 } }], 'POST and the call\'s body, by default')
})
