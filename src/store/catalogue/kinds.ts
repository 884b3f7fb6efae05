// A column's type, as the driver hands its values over: which JSON a field reading it gets. SQLite
// names types freely and decides by its affinity rules (https://sqlite.org/datatype3.html), plus
// the names people give dates and booleans; PostgreSQL names each type exactly.

export const KIND_NAMES = {
  integer: 'an integer',
  real: 'a floating-point number',
  numeric: 'a number SQLite keeps as an integer or a real',
  decimal: 'an exact decimal, as text',
  text: 'text',
  boolean: 'a boolean',
  date: 'a date',
  timestamp: 'a timestamp without its offset',
  timestamptz: 'a timestamp with its time zone',
  json: 'JSON',
  bytes: 'bytes',
  other: 'a type the gateway does not check'
} as const

export type ColumnKind = keyof typeof KIND_NAMES

/** The kind of a column of type `type`, in `store`'s words (`isEnum`: a PostgreSQL enum, read as text). */
export function columnKind (store: 'sqlite' | 'postgres', type: string, isEnum = false): ColumnKind {
  return store === 'sqlite' ? sqliteKind(type.toUpperCase()) : isEnum ? 'text' : POSTGRES_KINDS[type] ?? 'other'
}

const POSTGRES_KINDS: Readonly<Record<string, ColumnKind>> = {
  int2: 'integer',
  int4: 'integer',
  int8: 'integer',
  float4: 'real',
  float8: 'real',
  numeric: 'decimal',
  money: 'other',
  text: 'text',
  varchar: 'text',
  bpchar: 'text',
  char: 'text',
  name: 'text',
  citext: 'text',
  uuid: 'text',
  bool: 'boolean',
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  json: 'json',
  jsonb: 'json',
  bytea: 'bytes'
}

/** SQLite's affinity rules, in their order, after the names that say more than the affinity does. */
function sqliteKind (type: string): ColumnKind {
  if (type === '') return 'other'
  if (type === 'DATE') return 'date'
  if (type.includes('DATETIME') || type.includes('TIMESTAMP')) return 'timestamp'
  if (type.includes('BOOL')) return 'boolean'
  if (type === 'JSON' || type === 'JSONB') return 'json'
  if (type.includes('INT')) return 'integer'
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'text'
  if (type.includes('BLOB')) return 'bytes'
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return 'real'
  return 'numeric'
}
