// Where rows come from. A list is counted, then sliced (agents) or streamed (plain clients); a
// record is fetched by its arguments. Adapters: an in-memory array, a kysely query.

export interface ListSource<Args, Row> {
  /** How many rows the arguments select. */
  count: (args: Args) => Promise<number>
  /** `limit` rows from `offset`, in the source's stable order. */
  slice: (args: Args, offset: number, limit: number) => Promise<Row[]>
  /** Every row, in order, without holding them all in memory. */
  stream: (args: Args) => AsyncIterable<Row>
}

export interface RecordSource<Args, Row> {
  /** The one row the arguments name, or undefined. */
  one: (args: Args) => Promise<Row | undefined>
}
