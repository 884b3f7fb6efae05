// SQLite's catalogue, from its pragmas: columns (`table_info`), unique indexes (`index_list`,
// `index_info`), and the `CHECK (column IN (...))` lists of each table's CREATE statement.
import { sql, type Kysely } from 'kysely'
import type { ColumnInfo, TableInfo } from './index.js'
import { columnKind } from './kinds.js'
import { checkedValues } from './checks.js'

interface PragmaColumn { name: string, type: string, notnull: number, pk: number }

export async function sqliteCatalogue (db: Kysely<any>): Promise<TableInfo[]> {
  const objects = (await sql<{ name: string, type: 'table' | 'view', sql: string }>`
    select name, type, sql from sqlite_schema where type in ('table', 'view') and substr(name, 1, 7) <> 'sqlite_' order by name`.execute(db)).rows
  const tables: TableInfo[] = []
  for (const object of objects) {
    const view = object.type === 'view'
    const pragma = (await sql<PragmaColumn>`select name, type, "notnull", pk from pragma_table_info(${object.name})`.execute(db)).rows
    const primaryKey = pragma.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name)
    const checks = checkedValues(object.sql)
    const columns = pragma.map((column): ColumnInfo => {
      const values = checks.get(column.name.toLowerCase())
      return {
        name: column.name,
        type: column.type,
        kind: columnKind('sqlite', column.type),
        // An INTEGER PRIMARY KEY is the rowid, never NULL; any other key column may be, unless NOT NULL.
        nullable: view || (column.notnull === 0 && !(primaryKey.length === 1 && column.pk === 1 && column.type.toUpperCase() === 'INTEGER')),
        ...(values === undefined ? {} : { values })
      }
    })
    tables.push({ name: object.name, view, columns, primaryKey, unique: view ? [] : await uniqueSets(db, object.name, primaryKey) })
  }
  return tables
}

/** The primary key, then every other unique index without a WHERE (a UNIQUE constraint's included: SQLite makes it an index). */
async function uniqueSets (db: Kysely<any>, table: string, primaryKey: readonly string[]): Promise<string[][]> {
  const indexes = (await sql<{ name: string, unique: number, partial: number }>`select name, "unique", partial from pragma_index_list(${table}) where origin <> 'pk'`.execute(db)).rows
  const sets = primaryKey.length === 0 ? [] : [[...primaryKey]]
  for (const index of indexes.filter((index) => index.unique === 1 && index.partial === 0)) {
    const columns = (await sql<{ name: string | null }>`select name from pragma_index_info(${index.name}) order by seqno`.execute(db)).rows
    // An index on an expression names no column for it: no set of columns is unique by it.
    if (columns.every((column) => column.name !== null)) sets.push(columns.map((column) => column.name as string))
  }
  return sets
}
