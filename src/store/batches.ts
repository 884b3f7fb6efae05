// A whole list read through kysely's own streaming, a batch of rows at a time: on PostgreSQL each
// FETCH of the cursor is one batch as it came; a driver that streams row by row (SQLite's, for a
// private in-memory database) has its rows gathered into batches of `chunkSize`.
import type { Kysely, SelectQueryBuilder } from 'kysely'
import { compiledOnce } from './compiled.js'

export async function * batchesOf<Row> (db: Kysely<any>, query: SelectQueryBuilder<any, any, Row>, chunkSize: number): AsyncGenerator<Row[]> {
  let batch: Row[] = []
  for await (const { rows } of db.getExecutor().stream<Row>(compiledOnce(query), chunkSize)) {
    if (batch.length === 0 && rows.length >= chunkSize) {
      yield rows
      continue
    }
    batch.push(...rows)
    if (batch.length >= chunkSize) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}
