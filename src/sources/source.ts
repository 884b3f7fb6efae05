// Where rows come from. A list is counted, then sliced (agents) or streamed (plain clients); a
// record is fetched by its arguments; a text is read whole, as lines. Adapters: an in-memory
// array, a kysely query, a record's text.

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

export interface TextSource<Args> {
  /** The text the arguments name, as lines without their line breaks, or undefined. */
  lines: (args: Args) => Promise<readonly string[] | undefined>
}
