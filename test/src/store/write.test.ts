// A write on PostgreSQL, run again when the database refuses it for a conflict with a concurrent
// one, up to WRITE_ATTEMPTS in all; then a 503 to retry. Any other failure is thrown as it is.
import t from 'tap'
import { inWriteTransaction, WRITE_ATTEMPTS } from '../../../src/store/write.js'

/** A PostgreSQL store whose transactions fail with `codes`, one each, then succeed. */
function refusing (codes: string[]): { store: any, isolation: string[] } {
  const isolation: string[] = []
  const transaction = (): object => ({
    setIsolationLevel: (level: string) => {
      isolation.push(level)
      return { execute: async (work: (tx: object) => Promise<unknown>) => { const code = codes.shift(); if (code !== undefined) throw Object.assign(new Error(code), { code }); return await work({}) } }
    }
  })
  return { store: { kind: 'postgres', db: { transaction } }, isolation }
}

t.test('a serialization failure or a deadlock is run again, serializable every time', async (t) => {
  const { store, isolation } = refusing(['40001', '40P01'])
  t.equal(await inWriteTransaction(store, async () => 'written'), 'written')
  t.strictSame(isolation, ['serializable', 'serializable', 'serializable'])
})

t.test('refused every time: a 503 to retry', async (t) => {
  const { store, isolation } = refusing(Array.from({ length: WRITE_ATTEMPTS }, () => '40001'))
  await t.rejects(inWriteTransaction(store, async () => 'never'), { code: 'AG_STORE_UNAVAILABLE', statusCode: 503, message: /refused the write 5 times/ })
  t.equal(isolation.length, WRITE_ATTEMPTS)
})

t.test('any other failure is not run again', async (t) => {
  const { store, isolation } = refusing(['23505'])
  await t.rejects(inWriteTransaction(store, async () => 'never'), { code: '23505' })
  t.equal(isolation.length, 1)
})
