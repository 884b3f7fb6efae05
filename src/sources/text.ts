// A record's text as a source: find the record, then write its lines. A missing record is a
// missing text, so the route answers 404 for both alike.
import type { RecordSource, TextSource } from './source.js'

export function recordTextSource<Args, Row> (records: RecordSource<Args, Row>, text: (row: Row) => readonly string[]): TextSource<Args> {
  return {
    lines: async (args) => {
      const row = await records.one(args)
      return row === undefined ? undefined : text(row)
    }
  }
}
