// PostgreSQL's catalogue, from pg_catalog: the relations of one schema, their columns with each
// type's name (an enum's labels with it), their unique indexes, and their checks as PostgreSQL
// renders them.
import { sql, type Kysely } from 'kysely'
import { checkedValues } from './checks.js'
import type { TableInfo } from './index.js'
import { columnKind } from './kinds.js'

interface Column { relation: string, view: boolean, name: string, type: string, enum_labels: string[] | null, not_null: boolean }

export async function postgresCatalogue (db: Kysely<any>, schema?: string): Promise<TableInfo[]> {
  const namespace = schema ?? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema
  const columns = (await sql<Column>`
    select c.relname as relation, c.relkind in ('v', 'm') as view, a.attname as name, t.typname as type, a.attnotnull as not_null,
      case when t.typtype = 'e' then array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) end as enum_labels
    from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_type t on t.oid = a.atttypid
    where n.nspname = ${namespace} and c.relkind in ('r', 'p', 'v', 'm', 'f')
    order by c.relname, a.attnum`.execute(db)).rows
  const indexes = (await sql<{ relation: string, primary: boolean, columns: Array<string | null> }>`
    select c.relname as relation, i.indisprimary as primary,
      array(select a.attname::text from unnest(i.indkey) with ordinality k(attnum, position)
        left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum order by k.position) as columns
    from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${namespace} and i.indisunique and i.indpred is null
    order by c.relname, not i.indisprimary, i.indexrelid`.execute(db)).rows
  const checks = (await sql<{ relation: string, definition: string }>`
    select c.relname as relation, pg_get_constraintdef(k.oid) as definition
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${namespace} and k.contype = 'c'`.execute(db)).rows
  const tables = new Map<string, TableInfo & { columns: TableInfo['columns'][number][], unique: string[][], primaryKey: string[] }>()
  for (const column of columns) {
    let table = tables.get(column.relation)
    if (table === undefined) {
      table = { name: column.relation, view: column.view, columns: [], primaryKey: [], unique: [] }
      tables.set(column.relation, table)
    }
    const listed = column.enum_labels ?? checkedValues(checks.filter(({ relation }) => relation === column.relation).map(({ definition }) => definition).join(' ')).get(column.name.toLowerCase())
    table.columns.push({
      name: column.name,
      type: column.type,
      kind: columnKind('postgres', column.type, column.enum_labels !== null),
      nullable: !column.not_null,
      ...(listed === undefined ? {} : { values: listed })
    })
  }
  for (const index of indexes) {
    // An index is on one of the relations read (a table, a materialized view), which has columns.
    const table = tables.get(index.relation)!
    // An expression's place in an index names no column: no set of columns is unique by it.
    if (index.columns.includes(null)) continue
    table.unique.push(index.columns as string[])
    if (index.primary) table.primaryKey.push(...index.columns as string[])
  }
  return [...tables.values()]
}
