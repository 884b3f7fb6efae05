// A field read from a column must get values of its own type, as stored: each declared field is
// checked against its column's kind and nullability when the file is compiled, and a mismatch is
// refused naming the field, the column and both types, unless the mapping declares the conversion
// (`cast`, a timestamp's `stored`). What a kind needs on the way (SQLite's 0 and 1 as booleans, a
// stored timestamp's text as RFC 3339 with its instant unchanged) is converted here, row by row.
import { storedValueInvalid } from '../core/stored-values.js'
import type { RecordDeclaration } from '../declare/index.js'
import { KIND_NAMES, type ColumnInfo, type ColumnKind } from '../store/catalogue/index.js'
import { isTimeZone, storedInstant } from '../time.js'

/** How a field reads its column, as its mapping says. */
export interface FieldMapping {
  readonly field: string
  readonly column: string
  readonly json: boolean
  readonly omitNull: boolean
  /** `text`: the column is read as its text (`CAST(column AS TEXT)`). */
  readonly cast?: 'text'
  /** How a date-time field's column holds its instants: `UTC` (the default), an IANA zone's wall time, or `offset` (each value carries its own). */
  readonly stored?: string
}

/** What the field's declared schema asks of its values: one JSON type (and format), whether null is one. */
interface Wanted {
  readonly type: string
  readonly nullable: boolean
}

/** What reading the column takes: a conversion of each value (or none), or why the field cannot read it. */
export type ColumnReading = { readonly convert?: (value: unknown) => unknown } | { readonly problem: string }

/** Which kinds of column each type of field reads as they are: every value of them is one of its. */
const READS: Readonly<Record<string, readonly ColumnKind[]>> = {
  string: ['text', 'date', 'timestamp', 'timestamptz', 'decimal'],
  'string:date': ['text', 'date'],
  'string:date-time': ['text', 'timestamp', 'timestamptz'],
  'string:decimal': ['text', 'decimal'],
  integer: ['integer'],
  number: ['integer', 'real', 'numeric'],
  boolean: ['boolean'],
  object: ['json'],
  array: ['json']
}

/**
 * Checks `mapping`'s field of `record` against `column` of `table` (on `store`), and says how its
 * values are read. A column whose type says nothing (SQLite's none, an unknown one) is not checked
 * for its type, nor a view's for NULLs (a view promises none): their values are checked as they are
 * met (stored-values.ts, and the conversions here).
 */
export function columnReading (record: RecordDeclaration, mapping: FieldMapping, column: ColumnInfo, table: { readonly name: string, readonly view: boolean }, store: 'sqlite' | 'postgres'): ColumnReading {
  const wanted = wantedOf(record.schema.properties[mapping.field])
  const where = `column "${column.name}" of ${table.view ? 'view' : 'table'} "${table.name}"`
  if (wanted === undefined) return {}
  const kind = kindRead(mapping, column.kind, store)
  if (mapping.cast === 'text' && (column.kind === 'bytes' || column.kind === 'json')) {
    return { problem: `casts ${where} to text, but it holds ${KIND_NAMES[column.kind]}, which the cast would not keep as stored` }
  }
  const reads = READS[wanted.type]
  if (reads !== undefined && kind !== 'other' && !reads.includes(kind)) return { problem: `is ${describe(wanted.type)}, but ${where} is ${column.type} (${KIND_NAMES[column.kind]}); ${remedy(wanted.type, kind)}` }
  const optional = (record.schema.required ?? []).includes(mapping.field) === false
  if (column.nullable && !table.view && !wanted.nullable && !(mapping.omitNull && optional)) {
    return { problem: `is not nullable, but ${where} admits NULL; declare the field "nullable": true${optional ? ' (or map it with "omitNull": true)' : ''}, or make the column NOT NULL` }
  }
  if (mapping.stored !== undefined && wanted.type !== 'string:date-time') return { problem: 'says how its timestamps are "stored", but it is not a date-time field' }
  if (wanted.type === 'string:date-time') return timestamps(record.name, mapping)
  if (store === 'sqlite' && kind === 'boolean') return { convert: (value) => booleanOf(value, record.name, mapping.field) }
  if (column.type === 'int8' && kind === 'integer') return { convert: (value) => integerOf(value, record.name, mapping.field) }
  return {}
}

/**
 * What the field gets of the column: its text when cast; JSON parsed from text where the mapping says
 * `json` (SQLite keeps a JSON column as its text, so it is text unless mapped so).
 */
function kindRead (mapping: FieldMapping, kind: ColumnKind, store: 'sqlite' | 'postgres'): ColumnKind {
  if (mapping.cast === 'text') return 'text'
  const sqliteJson = store === 'sqlite' && kind === 'json'
  if (mapping.json) return kind === 'text' || sqliteJson ? 'json' : kind
  return sqliteJson ? 'text' : kind
}

/** A stored timestamp's text, in the storage its mapping declares (UTC unless it says otherwise). */
function timestamps (record: string, mapping: FieldMapping): ColumnReading {
  const stored = mapping.stored ?? 'UTC'
  if (stored !== 'offset' && stored !== 'UTC' && !isTimeZone(stored)) return { problem: `says its timestamps are stored in "${stored}", which is neither "UTC", "offset" nor an IANA time zone` }
  const zone = stored === 'offset' ? undefined : stored
  const why = stored === 'offset' ? 'holds a timestamp without its offset, or text that is no timestamp (its values are stored with their offsets)' : `holds text that is no timestamp (its values are stored as wall time in ${stored})`
  return {
    convert: (value) => {
      if (typeof value !== 'string') return value
      const instant = storedInstant(value, zone)
      if (instant === undefined) throw storedValueInvalid(record, mapping.field, why)
      return instant
    }
  }
}

/** SQLite keeps a boolean as 0 or 1; anything else in a boolean column is refused, not guessed. */
function booleanOf (value: unknown, record: string, field: string): unknown {
  if (value === 0 || value === 1) return value === 1
  if (value === null) return value
  throw storedValueInvalid(record, field, 'holds a value that is neither 0 nor 1 in a boolean column')
}

/**
 * pg hands a PostgreSQL `bigint` over as its text, as a JavaScript number cannot hold every one: a
 * value it holds exactly is served as the number; a larger one is refused rather than rounded.
 */
function integerOf (value: unknown, record: string, field: string): unknown {
  if (typeof value !== 'string') return value
  const number = Number(value)
  if (Number.isSafeInteger(number)) return number
  throw storedValueInvalid(record, field, `holds an integer beyond ${Number.MAX_SAFE_INTEGER}, which a JSON number is not read back as exactly; read it as text with "cast": "text" and a "string" field`)
}

/** The field's type, with its format where one changes what it reads; undefined when it states no one type (choices of mixed types). */
function wantedOf (schema: unknown): Wanted | undefined {
  const { type, format } = schema as { type?: unknown, format?: unknown }
  // A file's field states its type, or its choices' types: several (choices of mixed types) say no one.
  const types = (Array.isArray(type) ? type : [type]).filter((one) => one !== 'null') as string[]
  if (types.length !== 1) return undefined
  const formatted = types[0] === 'string' && typeof format === 'string' && Object.hasOwn(READS, `string:${format}`)
  return { type: formatted ? `string:${String(format)}` : types[0], nullable: Array.isArray(type) && type.includes('null') }
}

function describe (type: string): string {
  return { 'string:date': 'a date', 'string:date-time': 'a date-time', 'string:decimal': 'a decimal', integer: 'an integer', object: 'an object', array: 'an array' }[type] ?? `a ${type}`
}

/** What the user may do instead: the field types that read this kind, or the cast. */
function remedy (type: string, kind: ColumnKind): string {
  const fitting = Object.entries(READS).filter(([, kinds]) => kinds.includes(kind)).map(([name]) => JSON.stringify(name.replace(/^string:/, '')))
  const cast = type === 'string' || type === 'string:decimal' ? ', or read the column as text with "cast": "text"' : ''
  const json = kind === 'text' && (type === 'object' || type === 'array') ? 'map the column with "json": true to read its text as JSON' : ''
  if (json !== '') return json
  return fitting.length === 0 ? `no field reads ${KIND_NAMES[kind]}` : `declare the field ${fitting.join(' or ')}${cast}`
}
