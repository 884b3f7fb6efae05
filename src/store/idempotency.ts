// Where the keys of retried actions are kept (src/core/idempotency.ts): a table of the store's own,
// `gateway_idempotency`, so every replica reading the same store answers a retry alike. A key's
// first use inserts its row (the primary key settles a race between replicas); its result is
// written in the transaction of the work itself, so a call is recorded exactly when it acted.
import type { Kysely } from 'kysely'
import { KEPT_SECONDS, LEASE_SECONDS, type Claim, type IdempotencyStore } from '../core/idempotency.js'
import type { Store } from './store.js'

export const IDEMPOTENCY_TABLE = 'gateway_idempotency'

interface KeyRow {
  scope: string
  fingerprint: string
  /** Null while the call is in progress. */
  status: number | null
  /** The result's JSON, once settled. */
  result: string | null
  /** Milliseconds since the epoch (a bigint column: PostgreSQL reads it back as a string). */
  claimed_at: number | string
  expires_at: number | string
}

interface KeysDatabase {
  gateway_idempotency: KeyRow
}

/** The table, made sure of; safe to run again, and by replicas at once. */
async function setUpIdempotency (store: Pick<Store<any>, 'db'>): Promise<void> {
  const db = store.db as unknown as Kysely<KeysDatabase>
  const create = async (): Promise<void> => {
    await db.schema.createTable(IDEMPOTENCY_TABLE).ifNotExists()
      .addColumn('scope', 'text', (column) => column.primaryKey())
      .addColumn('fingerprint', 'text', (column) => column.notNull())
      .addColumn('status', 'integer')
      .addColumn('result', 'text')
      .addColumn('claimed_at', 'bigint', (column) => column.notNull())
      .addColumn('expires_at', 'bigint', (column) => column.notNull())
      .execute()
    await db.schema.createIndex(`${IDEMPOTENCY_TABLE}_expires_at`).ifNotExists().on(IDEMPOTENCY_TABLE).column('expires_at').execute()
  }
  // Two PostgreSQL replicas creating it at once: the second's `if not exists` can still collide; it is there then.
  await create().catch(async () => { await create() })
}

/**
 * The keys kept in `store`. The table is made sure of when the first key is claimed, not when the
 * app starts: a gateway that is only checked (or whose actions are never called) writes nothing.
 */
export function storeIdempotency (store: Pick<Store<any>, 'db'>): IdempotencyStore {
  const db = store.db as unknown as Kysely<KeysDatabase>
  let made: Promise<void> | undefined
  const claim = async (scope: string, fingerprint: string, now: number): Promise<Claim> => {
    // Tried again on the next claim if it failed (the store was out of reach).
    await (made ??= setUpIdempotency(store).catch((error: unknown) => { made = undefined; throw error }))
    await db.deleteFrom(IDEMPOTENCY_TABLE).where('expires_at', '<=', now).execute()
    const inserted = await db.insertInto(IDEMPOTENCY_TABLE)
      .values({ scope, fingerprint, status: null, result: null, claimed_at: now, expires_at: now + KEPT_SECONDS * 1000 })
      .onConflict((conflict) => conflict.column('scope').doNothing())
      .executeTakeFirst()
    if (Number(inserted.numInsertedOrUpdatedRows) === 1) return { kind: 'claimed' }
    // A call of the same input still unsettled past its lease ended with its process, its work
    // rolled back: this one takes the key over, unless another took it first.
    const taken = await db.updateTable(IDEMPOTENCY_TABLE).set({ claimed_at: now })
      .where('scope', '=', scope).where('fingerprint', '=', fingerprint).where('status', 'is', null).where('claimed_at', '<=', now - LEASE_SECONDS * 1000)
      .executeTakeFirst()
    if (Number(taken.numUpdatedRows) === 1) return { kind: 'claimed' }
    const row = await db.selectFrom(IDEMPOTENCY_TABLE).selectAll().where('scope', '=', scope).executeTakeFirst()
    if (row !== undefined && row.fingerprint !== fingerprint) return { kind: 'reused' }
    if (row !== undefined && row.status !== null && row.result !== null) return { kind: 'done', status: Number(row.status), result: JSON.parse(row.result) }
    // In progress; or released by its call's failure a moment ago: a retry shortly claims it.
    return { kind: 'running' }
  }
  return {
    claim,
    settle: async (scope, status, result, within) => {
      const on = (within ?? db) as Kysely<KeysDatabase>
      await on.updateTable(IDEMPOTENCY_TABLE).set({ status, result: JSON.stringify(result) }).where('scope', '=', scope).execute()
    },
    release: async (scope) => {
      await db.deleteFrom(IDEMPOTENCY_TABLE).where('scope', '=', scope).where('status', 'is', null).execute()
    }
  }
}
