// The two queries every agent page runs, written once for both references: the same kysely store
// and the same SQL the gateway's source sends (a COUNT over the query, then LIMIT/OFFSET).
import { sql } from 'kysely'
import type { Db } from '../../../demo/database.js'
import type { BenchBook } from '../seed.js'

export const MAX_PAGE_SIZE = 50

export function catalogue (db: Db) {
  return db.selectFrom('books').selectAll().orderBy('id')
}

export async function countBooks (db: Db): Promise<number> {
  const { count } = await db.selectFrom(catalogue(db).clearOrderBy().as('counted')).select(sql<number>`count(*)`.as('count')).executeTakeFirstOrThrow()
  return Number(count)
}

export async function bookPage (db: Db, offset: number, limit: number): Promise<BenchBook[]> {
  return await catalogue(db).limit(limit).offset(offset).execute() as BenchBook[]
}

export async function allBooks (db: Db): Promise<BenchBook[]> {
  return await catalogue(db).execute() as BenchBook[]
}
