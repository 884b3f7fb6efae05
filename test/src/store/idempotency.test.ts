// The keys of retried actions in the store, on SQLite and PostgreSQL: a key's first use claims it;
// the same input while it runs is told so, other input is reused; a settled call is answered; a
// call unsettled past its lease is taken over (by the same input only); a key past its time is
// forgotten; a release forgets only an unsettled claim.
import t from 'tap'
import { KEPT_SECONDS, LEASE_SECONDS } from '../../../src/core/idempotency.js'
import { storeIdempotency } from '../../../src/store/idempotency.js'
import { onBothStores } from '../../helpers/services.js'

const NOW = Date.UTC(2026, 11, 4)
const LEASE = LEASE_SECONDS * 1000

await onBothStores(t, async () => {}, async (t, store) => {
  const keys = storeIdempotency(store)
  t.test('claimed once; the same input is running, other input reused; settled, it is answered', async (t) => {
    t.strictSame(await keys.claim('s1', 'f1', NOW), { kind: 'claimed' })
    t.strictSame(await keys.claim('s1', 'f1', NOW + 1), { kind: 'running' })
    t.strictSame(await keys.claim('s1', 'f2', NOW + 1), { kind: 'reused' })
    await keys.settle('s1', 201, { id: 1, note: 'é' })
    t.strictSame(await keys.claim('s1', 'f1', NOW + 2), { kind: 'done', status: 201, result: { id: 1, note: 'é' } })
    t.strictSame(await keys.claim('s1', 'f1', NOW + LEASE * 2), { kind: 'done', status: 201, result: { id: 1, note: 'é' } }, 'a settled call is never taken over')
    await keys.release('s1')
    t.strictSame(await keys.claim('s1', 'f1', NOW + 3), { kind: 'done', status: 201, result: { id: 1, note: 'é' } }, 'a release forgets only an unsettled claim')
  })
  t.test('an unsettled claim past its lease is taken over by the same input only', async (t) => {
    t.strictSame(await keys.claim('s2', 'f1', NOW), { kind: 'claimed' })
    t.strictSame(await keys.claim('s2', 'f1', NOW + LEASE - 1), { kind: 'running' })
    t.strictSame(await keys.claim('s2', 'f2', NOW + LEASE), { kind: 'reused' })
    t.strictSame(await keys.claim('s2', 'f1', NOW + LEASE), { kind: 'claimed' })
    t.strictSame(await keys.claim('s2', 'f1', NOW + LEASE + 1), { kind: 'running' }, 'taken over, it holds the key again')
  })
  t.test('two replicas taking a lapsed claim over at once: one does', async (t) => {
    t.strictSame(await keys.claim('s4', 'f1', NOW), { kind: 'claimed' })
    const both = await Promise.all([keys.claim('s4', 'f1', NOW + LEASE), keys.claim('s4', 'f1', NOW + LEASE)])
    t.strictSame(both.map((claim) => claim.kind).sort(), ['claimed', 'running'])
  })
  t.test('a released claim is claimed anew; a key past its time is forgotten', async (t) => {
    t.strictSame(await keys.claim('s3', 'f1', NOW), { kind: 'claimed' })
    await keys.release('s3')
    t.strictSame(await keys.claim('s3', 'f2', NOW), { kind: 'claimed' })
    await keys.settle('s3', 200, { id: 3, note: 'x' })
    t.strictSame(await keys.claim('s3', 'f9', NOW + KEPT_SECONDS * 1000), { kind: 'claimed' }, 'its time is up: the key is new again')
  })
})
