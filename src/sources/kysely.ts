// A kysely query as a source: COUNT over it, then LIMIT/OFFSET for a page, and a streamed read for
// the whole list. The query must order by a stable key, so pages never overlap or skip.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { ListSource, RecordSource } from './source.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyQuery<Row> = SelectQueryBuilder<any, any, Row>

export interface KyselySourceOptions<Row, Out> {
  /** Turns a stored row into a presented one (e.g. parses JSON columns). */
  decode?: (row: Row) => Out
  /** Rows fetched per round trip while streaming. */
  chunkSize?: number
}

export function kyselySource<Args, Row, Out = Row> (
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  query: (args: Args) => AnyQuery<Row>,
  options: KyselySourceOptions<Row, Out> = {}
): ListSource<Args, Out> {
  const decode = options.decode ?? ((row: Row) => row as unknown as Out)
  const chunkSize = options.chunkSize ?? 1000
  return {
    count: async (args) => {
      // COUNT over the query itself, so filters, joins and DISTINCT count as they select.
      const counted = db.selectFrom(query(args).clearOrderBy().as('counted')).select(sql<string | number>`count(*)`.as('count'))
      const { count } = await counted.executeTakeFirstOrThrow()
      return Number(count)
    },
    slice: async (args, offset, limit) => (await query(args).limit(limit).offset(offset).execute()).map(decode),
    stream: (args) => decoded(query(args).stream(chunkSize), decode)
  }
}

export function kyselyRecordSource<Args, Row, Out = Row> (
  query: (args: Args) => AnyQuery<Row>,
  options: Pick<KyselySourceOptions<Row, Out>, 'decode'> = {}
): RecordSource<Args, Out> {
  const decode = options.decode ?? ((row: Row) => row as unknown as Out)
  return {
    one: async (args) => {
      const row = await query(args).limit(1).executeTakeFirst()
      return row === undefined ? undefined : decode(row)
    }
  }
}

async function * decoded<Row, Out> (rows: AsyncIterable<Row>, decode: (row: Row) => Out): AsyncIterable<Out> {
  for await (const row of rows) yield decode(row)
}
