// A write, all or nothing: `work` runs in one transaction on the store, isolated from every other
// so that what it reads (the record an affordance is checked on) is still so when it commits. On
// SQLite the transaction takes the write lock as it begins (BEGIN IMMEDIATE): a second writer, in
// this process or another, waits for it rather than failing mid-way. On PostgreSQL it is
// SERIALIZABLE, and run again when the database refuses it for a conflict with a concurrent one.
import { sql, type Kysely } from 'kysely'
import { problem } from '../core/errors.js'
import type { Store } from './store.js'

/** How many times a write the database refused for a conflict is run in all before the refusal stands. */
export const WRITE_ATTEMPTS = 5

/** PostgreSQL's serialization failure and deadlock: the transaction did nothing and may be run again. */
const RETRYABLE = new Set(['40001', '40P01'])

function ignored (): void {}

export async function inWriteTransaction<DB, T> (store: Pick<Store<DB>, 'db' | 'kind'>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  if (store.kind === 'sqlite') {
    return await store.db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection)
      try {
        const result = await work(connection)
        await sql`commit`.execute(connection)
        return result
      } catch (error) {
        // A rollback that fails too (the connection lost) leaves the first failure to tell.
        await sql`rollback`.execute(connection).then(ignored, ignored)
        throw error
      }
    })
  }
  return await serializable(store.db, work, 1)
}

/** `work` in a SERIALIZABLE transaction, run again (as `attempt` + 1) when PostgreSQL refuses it for a conflict. */
async function serializable<DB, T> (db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>, attempt: number): Promise<T> {
  try {
    return await db.transaction().setIsolationLevel('serializable').execute(work)
  } catch (error) {
    if (!RETRYABLE.has((error as { code?: unknown }).code as string)) throw error
    // Writes at the same time as this one, every time: a state of the store, which passes (503), not a fault of the request.
    if (attempt >= WRITE_ATTEMPTS) throw problem('AG_STORE_UNAVAILABLE', `The store refused the write ${WRITE_ATTEMPTS} times, each for a conflict with writes at the same time: retry shortly.`)
    return await serializable(db, work, attempt + 1)
  }
}
