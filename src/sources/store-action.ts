// An action's target on the store: its statements run in one transaction (src/store/write.ts),
// parameterised by kysely. The record an affordance is on is read first, inside the transaction,
// and checked before anything changes; the result is recorded for retries before it commits. A
// failure anywhere rolls every statement back: nothing is half done.
import type { Kysely } from 'kysely'
import type { ActionTarget } from '../core/action.js'
import type { Store } from '../store/index.js'
import { inWriteTransaction } from '../store/write.js'

export interface StoreActionOptions<DB, Input, Result, Row> {
  /**
   * The record the action acts on, read on `tx` before anything changes: none is a 404, and the
   * action's affordance is checked on it (a 409 when it no longer holds). Left out, the action acts on no record.
   */
  readonly subject?: (tx: Kysely<DB>, input: Input) => Promise<Row | undefined>
  /** The work, on `tx`: every statement commits with the others, or none does. Returns the result record. */
  readonly act: (tx: Kysely<DB>, input: Input, subject: Row) => Promise<Result>
}

export function storeAction<DB, Input, Result, Row = undefined> (store: Pick<Store<DB>, 'db' | 'kind'>, options: StoreActionOptions<DB, Input, Result, Row>): ActionTarget<Input, Result, Row> {
  const { subject } = options
  return {
    problems: ['AG_STORE_UNAVAILABLE', 'AG_STORED_VALUE_INVALID'],
    readsSubject: subject !== undefined,
    transactional: true,
    run: async (input, hooks) => await inWriteTransaction(store, async (tx) => {
      const row = subject === undefined ? undefined : await subject(tx, input)
      if (subject !== undefined) hooks.check(row)
      const result = await options.act(tx, input, row as Row)
      await hooks.settle(result, tx)
      return result
    })
  }
}
