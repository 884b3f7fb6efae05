// A file's sources as the same sources TypeScript builds: a kysely query over a table or view
// (checked against the database: the table and every column a mount reads must exist), or an
// upstream endpoint read through one client per declared upstream.
import { sql, type Kysely } from 'kysely'
import { namesOneRow, type Catalogue, type TableInfo } from '../store/catalogue/index.js'
import { columnReading, type FieldMapping } from './columns.js'
import type { RecordDeclaration } from '../declare/index.js'
import type { Validators } from '../core/validators.js'
import { kyselyRecordSource, kyselySource } from '../sources/kysely.js'
import { recordBytesSource } from '../sources/bytes.js'
import type { ByteSource, ListSource, RecordSource, SourceLog, TextSource, WindowSource } from '../sources/source.js'
import { recordTextSource } from '../sources/text.js'
import {
  cursorPaging, offsetPaging, pageLinkPaging, singlePaging, upstreamList, upstreamPath, upstreamRecord, type UpstreamClient, type UpstreamPaging
} from '../sources/upstream/index.js'
import type { Store } from '../store/store.js'
import { pointerOf, type Issue } from './errors.js'
import type { TableSourceDeclaration, UpstreamPagingDeclaration, UpstreamSourceDeclaration } from './schema.js'

/** What a mount reads its rows from. */
export interface Sourced {
  readonly list?: ListSource<unknown, any> | WindowSource<unknown, any>
  readonly record?: RecordSource<Record<string, unknown>, any>
  /** The record its path parameters name, read on `db` (an action's transaction), as `record` reads it. */
  readonly one?: (db: Kysely<any>, args: Readonly<Record<string, unknown>>) => Promise<Record<string, unknown> | undefined>
}

/** What a source is read for: the record it serves, and the path parameters a retrieve names it by. */
export interface Reading {
  readonly kind: 'list' | 'retrieve'
  readonly record: RecordDeclaration
  readonly params: readonly string[]
  /** Where the source is declared, and where the mount is, for problems. */
  readonly at: string
  readonly mountAt: string
  /** Where the record is declared, for problems of one of its fields. */
  readonly recordAt: string
}

/**
 * The source of a table or view, for one mount: each column it reads checked to exist and to hold
 * what its field declares, and its order to name one row.
 */
export function tableSource (declared: TableSourceDeclaration, reading: Reading, store: Pick<Store<any>, 'db' | 'kind' | 'stream' | 'counts'> & Partial<Pick<Store<any>, 'versionTag' | 'dataVersion'>>, tables: Catalogue, issues: Issue[]): Sourced {
  const { at } = reading
  const table = tableOf(declared, tables, at, issues)
  if (table === undefined) return {}
  const columns = new Map(table.columns.map((column) => [column.name, column]))
  const missing = (column: string, pointer: string, why: string): boolean => {
    if (columns.has(column)) return false
    issues.push({ pointer, message: `${why} column "${column}", which table "${declared.table}" does not have; its columns: ${[...columns.keys()].join(', ')}` })
    return true
  }
  const { affordances: _computed, ...fields } = reading.record.schema.properties
  const mapped = Object.keys(fields).map((field) => mappingOf(declared, field))
  for (const name of Object.keys(declared.fields ?? {})) {
    if (!Object.hasOwn(fields, name)) issues.push({ pointer: `${at}/fields/${name}`, message: `maps "${name}", which record ${reading.record.name} does not declare` })
  }
  // A field read from the column of its own name is pointed at where it is declared; a mapped one at its mapping.
  const fieldAt = (field: string): string => declared.fields?.[field] === undefined ? `${reading.recordAt}${pointerOf('fields', field)}` : `${at}${pointerOf('fields', field)}`
  const conversions: Array<{ field: string, convert: (value: unknown) => unknown }> = []
  let broken = false
  for (const mapping of mapped) {
    if (missing(mapping.column, fieldAt(mapping.field), `record ${reading.record.name}'s field "${mapping.field}" reads`)) {
      broken = true
      continue
    }
    const read = columnReading(reading.record, mapping, columns.get(mapping.column)!, table, store.kind)
    if ('problem' in read) {
      issues.push({ pointer: fieldAt(mapping.field), message: `record ${reading.record.name}'s field "${mapping.field}" ${read.problem}` })
      broken = true
    } else if (read.convert !== undefined) {
      conversions.push({ field: mapping.field, convert: read.convert })
    }
  }
  const order = (typeof declared.orderBy === 'string' ? [declared.orderBy] : declared.orderBy).map((key) => key.startsWith('-') ? { column: key.slice(1), direction: 'desc' as const } : { column: key, direction: 'asc' as const })
  broken = order.map(({ column }) => missing(column, `${at}/orderBy`, 'it is ordered by')).includes(true) || broken
  if (!broken && reading.kind === 'list' && !orderNamesOneRow(declared, table, order.map(({ column }) => column))) {
    issues.push({ pointer: `${at}/orderBy`, message: orderRefusal(declared, table, reading.mountAt) })
    broken = true
  }
  if (declared.seek === true && (order.length !== 1 || order[0].direction !== 'asc')) {
    issues.push({ pointer: `${at}/seek`, message: 'seeks by one ascending order key; order it by one column, ascending, or leave seek out' })
    broken = true
  }
  const keys = reading.params.map((param) => {
    const column = mapped.find(({ field }) => field === param)?.column
    if (column === undefined) issues.push({ pointer: reading.mountAt, message: `path parameter "${param}" names no field of record ${reading.record.name}` })
    return { param, column }
  })
  if (broken || keys.some(({ column }) => column === undefined)) return {}

  const queryOn = (db: Kysely<any>): any => {
    let selected = db.selectFrom(declared.table).select((eb: any) => mapped.map(({ field, column, cast }) => cast === 'text' ? sql`cast(${sql.ref(column)} as text)`.as(field) : column === field ? eb.ref(column) : eb.ref(column).as(field)))
    for (const { column, direction } of order) selected = selected.orderBy(column, direction)
    return selected
  }
  const decoded = mapped.filter(({ json, omitNull }) => json || omitNull)
  const decode = decoded.length === 0 && conversions.length === 0 ? undefined : (row: Record<string, unknown>) => decodeRow(row, decoded, conversions)
  // A filter compares the column itself: WHERE cannot name the field a column is selected as.
  const renamed = Object.fromEntries(mapped.filter(({ field, column }) => field !== column).map(({ field, column }) => [field, column]))
  const query = (): any => queryOn(store.db as Kysely<any>)
  if (reading.kind === 'list') return { list: kyselySource(store, query, { decode, columns: renamed, ...(declared.seek === true ? { keyset: { column: order[0].column } } : {}) }) }
  const named = (db: Kysely<any>, args: Readonly<Record<string, unknown>>): any => keys.reduce((selected, { column, param }) => selected.where(column, '=', args[param]), queryOn(db))
  return {
    record: kyselyRecordSource((args: Record<string, unknown>) => named(store.db as Kysely<any>, args), { decode }),
    one: async (db, args) => {
      const row: Record<string, unknown> | undefined = await named(db, args).executeTakeFirst()
      return row === undefined || decode === undefined ? row : decode(row)
    }
  }
}

/** True when no two rows share the order's columns: they include a unique set of the table, or the source says so of a view. */
function orderNamesOneRow (declared: TableSourceDeclaration, table: TableInfo, columns: readonly string[]): boolean {
  return table.view ? declared.unique !== undefined && declared.unique.every((column) => columns.includes(column)) : namesOneRow(table, columns)
}

/** Why an order that may tie is refused, and what would make it name one row. */
function orderRefusal (declared: TableSourceDeclaration, table: TableInfo, mountAt: string): string {
  const why = `pages of a list (${mountAt}) must follow an order no two rows share, or rows with equal keys could repeat or go missing from one page to the next`
  if (table.view) return `${why}; a view publishes no keys: say which of its columns name one row with "unique" (e.g. ["id"]) and order by them, last`
  const keys = table.unique.map((key) => key.join(' + '))
  return `${why}; add a column that does as the last key${keys.length === 0 ? `: table "${table.name}" has no primary key nor unique index` : ` (table "${table.name}" has ${keys.map((key) => `"${key}"`).join(', ')})`}`
}

/** What a text mount reads: the column holding the text, and the path parameters naming its row. */
export interface TextReading {
  readonly column: string
  readonly params: readonly string[]
  readonly at: string
}

/** The text in one column of the row the path parameters name; each column checked to exist. */
export function tableText (declared: TableSourceDeclaration, reading: TextReading, store: Pick<Store<any>, 'db'>, tables: Catalogue, issues: Issue[]): TextSource<Record<string, unknown>> | undefined {
  const row = columnRow(declared, reading, 'a text reads', store, tables, issues)
  return row === undefined ? undefined : recordTextSource(row, ({ value }) => linesOf(value))
}

/** The bytes in one column of the row the path parameters name (a text column's as UTF-8); each column checked to exist. */
export function tableBytes (declared: TableSourceDeclaration, reading: TextReading, store: Pick<Store<any>, 'db'>, tables: Catalogue, issues: Issue[]): ByteSource<Record<string, unknown>> | undefined {
  const row = columnRow(declared, reading, 'bytes are read from', store, tables, issues)
  return row === undefined ? undefined : recordBytesSource(row, ({ value }) => typeof value === 'string' ? Buffer.from(value, 'utf8') : value as Uint8Array | null)
}

/** The one column a text or bytes mount reads, of the row its path parameters name. */
function columnRow (declared: TableSourceDeclaration, reading: TextReading, what: string, store: Pick<Store<any>, 'db'>, tables: Catalogue, issues: Issue[]): RecordSource<Record<string, unknown>, { value: unknown }> | undefined {
  const table = tableOf(declared, tables, reading.at, issues)
  if (table === undefined) return undefined
  const columns = table.columns.map(({ name }) => name)
  const keys = reading.params.map((param) => ({ param, column: mappingOf(declared, param).column }))
  const missing = [reading.column, ...keys.map(({ column }) => column)].filter((column) => !columns.includes(column))
  if (missing.length > 0) {
    issues.push({ pointer: reading.at, message: `${what} column ${missing.map((column) => `"${column}"`).join(', ')}, which table "${declared.table}" does not have; its columns: ${columns.join(', ')}` })
    return undefined
  }
  const db = store.db as Kysely<any>
  const query = (args: Record<string, unknown>): any => keys.reduce(
    (selected: any, { column, param }) => selected.where(column, '=', args[param]),
    db.selectFrom(declared.table).select((eb: any) => eb.ref(reading.column).as('value'))
  )
  return kyselyRecordSource<Record<string, unknown>, { value: unknown }>(query)
}

/** A text's lines, without their breaks; a last line break ends the last line, and NULL is no text. */
function linesOf (text: unknown): string[] {
  if (text === null || text === undefined || text === '') return []
  const lines = String(text).split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/** The source of an upstream endpoint, for one mount, its rows told to `log` and checked by `validators`. */
export function upstreamSource (declared: UpstreamSourceDeclaration, reading: Reading, client: UpstreamClient, { log, validators }: { readonly log: SourceLog, readonly validators?: Validators }, issues: Issue[]): Sourced {
  const { at } = reading
  const named = [...declared.path.matchAll(/\{([^}]*)\}/g)].map((match) => match[1])
  const unknown = named.filter((name) => !reading.params.includes(name))
  if (unknown.length > 0) {
    issues.push({ pointer: `${at}/path`, message: `names ${unknown.map((name) => `{${name}}`).join(', ')}, which ${reading.kind === 'list' ? 'a list cannot fill: it has no path parameters' : 'are not path parameters of the mount'}` })
    return {}
  }
  if ((reading.kind === 'list') !== (declared.paging !== undefined)) {
    issues.push({ pointer: reading.mountAt, message: reading.kind === 'list' ? 'a list reads an upstream source that says its "paging"' : 'one record reads an upstream source without "paging"' })
    return {}
  }
  const common = { client, declaration: reading.record, fields: declared.fields, log, validators }
  try {
    if (declared.paging !== undefined) {
      return { list: upstreamList({ ...common, path: declared.path, paging: pagingOf(declared.paging), maxRows: declared.maxRows }) }
    }
    return { record: upstreamRecord({ ...common, path: upstreamPath(declared.path), item: declared.item }) }
  } catch (error) {
    issues.push({ pointer: at, message: (error as Error).message })
    return {}
  }
}

/** The source's table, or undefined (and the issue) when the database has no such table. */
export function tableOf (declared: TableSourceDeclaration, tables: Catalogue, at: string, issues: Issue[]): TableInfo | undefined {
  const table = tables.get(declared.table)
  if (table === undefined) issues.push({ pointer: `${at}/table`, message: `the database has no table or view "${declared.table}"; it has: ${[...tables.keys()].join(', ') || 'none'}` })
  return table
}

function pagingOf (declared: UpstreamPagingDeclaration): UpstreamPaging {
  switch (declared.style) {
    case 'page-link': return pageLinkPaging(declared)
    case 'offset': return offsetPaging(declared)
    case 'cursor': return cursorPaging(declared)
    default: return singlePaging(declared)
  }
}

function mappingOf (declared: TableSourceDeclaration, field: string): FieldMapping {
  const mapping = declared.fields?.[field]
  if (mapping === undefined || typeof mapping === 'string') return { field, column: mapping ?? field, json: false, omitNull: false }
  return { field, column: mapping.column ?? field, json: mapping.json === true, omitNull: mapping.omitNull === true, cast: mapping.cast, stored: mapping.stored }
}

function decodeRow (row: Record<string, unknown>, decoded: readonly FieldMapping[], conversions: ReadonlyArray<{ field: string, convert: (value: unknown) => unknown }>): Record<string, unknown> {
  const out = { ...row }
  for (const { field, json, omitNull } of decoded) {
    const value = out[field]
    if (value === null && omitNull) delete out[field]
    else if (json && typeof value === 'string') out[field] = JSON.parse(value)
  }
  for (const { field, convert } of conversions) out[field] = convert(out[field])
  return out
}
