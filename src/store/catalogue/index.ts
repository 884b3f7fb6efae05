// What the database says of its own tables: each table's and view's columns with their types and
// nullability, its keys, and the values its checks and enums admit. Read once, where a declaration
// file is compiled (to check the file against it) and where one is drafted (`init --from-db`).
import type { Kysely } from 'kysely'
import type { Store } from '../store.js'
import type { ColumnKind } from './kinds.js'
import { postgresCatalogue } from './postgres.js'
import { sqliteCatalogue } from './sqlite.js'

export { columnKind, KIND_NAMES, type ColumnKind } from './kinds.js'

export interface ColumnInfo {
  readonly name: string
  /** The type as the database names it (`VARCHAR(20)`, `int4`, `timestamptz`, an enum's name). */
  readonly type: string
  /** What the driver hands over for it, and so which fields may read it. */
  readonly kind: ColumnKind
  /** False when the database guarantees no NULL (NOT NULL, SQLite's INTEGER PRIMARY KEY); a view's columns are always true. */
  readonly nullable: boolean
  /** The only values it may hold, where a check (`IN (...)`) or an enum says so. */
  readonly values?: ReadonlyArray<string | number>
}

export interface TableInfo {
  readonly name: string
  readonly view: boolean
  readonly columns: readonly ColumnInfo[]
  /** The primary key's columns (none for a view, or a table without one). */
  readonly primaryKey: readonly string[]
  /** Every set of columns no two rows share: the primary key and each unique index or constraint without a condition. */
  readonly unique: ReadonlyArray<readonly string[]>
}

/** Every table and view of one schema, by name. */
export type Catalogue = ReadonlyMap<string, TableInfo>

/** The tables and views of `schema` (PostgreSQL; default: the first of the search_path), or of the SQLite file. */
export async function readCatalogue (store: Pick<Store<any>, 'db' | 'kind'>, schema?: string): Promise<Catalogue> {
  const db = store.db as Kysely<any>
  const tables = store.kind === 'postgres' ? await postgresCatalogue(db, schema) : await sqliteCatalogue(db)
  return new Map(tables.map((table) => [table.name, table]))
}

/** True when the columns, in any order, include every column of one of the table's unique sets. */
export function namesOneRow (table: TableInfo, columns: readonly string[]): boolean {
  return table.unique.some((key) => key.every((column) => columns.includes(column)))
}
