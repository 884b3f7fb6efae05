// A declaration file drafted from a database's own catalogue: per table (or view) one record, one
// source and a list and a record mount. Each column becomes a field of the JSON type its kind reads,
// nullable where the column admits NULL; the key is the handle and the order; a label, hidden fields,
// timestamps and choices (a CHECK's list, an enum) are guessed, each guess a note. What cannot be
// drafted (bytes, JSON of unknown shape, a column of no declared type, a table without a key) is
// left out with a note, never guessed wrong: `check` accepts what is written.
import type { FieldDeclaration, MountDeclaration, ParamDeclaration, RecordDeclarationEntry, SourceDeclaration } from '../config-file/schema.js'
import { pointerOf } from '../config-file/errors.js'
import { MissingDatabaseError, openStore } from '../store/index.js'
import { readCatalogue, type Catalogue, type ColumnInfo, type ColumnKind, type TableInfo } from '../store/catalogue/index.js'
import { DraftError, type Draft } from './draft.js'
import { camel, displayOf, LABEL_NAMES, looksHidden, pascal, uniqueName } from './guesses.js'

export interface DatabaseDraftOptions {
  /** Only these tables and views, in this order (default: every one, by name). */
  readonly tables?: readonly string[]
  /** PostgreSQL: the schema read (default: the first of the search_path, as the gateway reads). */
  readonly schema?: string
}

type Note = Draft['notes'][number]

/** The draft of the database `url` names; a SQLite file that does not exist is refused, never created. */
export async function draftFromDatabase (url: string, options: DatabaseDraftOptions = {}): Promise<Draft> {
  const store = await openStore(url, { create: false }).catch(unreadable)
  const catalogue = await readCatalogue(store, options.schema).catch(unreadable).finally(async () => { await store.close() })
  return draftFromCatalogue(catalogue, store.kind, options)
}

/** Why a database cannot be drafted from, in one line. */
function unreadable (error: unknown): never {
  throw new DraftError(error instanceof MissingDatabaseError ? 'names no SQLite file: the draft is made from an existing database' : `cannot be read: ${(error as Error).message}`)
}

/** What a column of each kind is declared as; a kind missing here cannot be drafted as a field. */
const FIELD_TYPES = {
  integer: 'integer',
  real: 'number',
  numeric: 'number',
  decimal: 'decimal',
  text: 'string',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'date-time',
  timestamptz: 'date-time'
} as const satisfies Partial<Record<ColumnKind, NonNullable<FieldDeclaration['type']>>>

/** Why a column of a kind that cannot be drafted is left out. */
const LEFT_OUT: Readonly<Record<Exclude<ColumnKind, keyof typeof FIELD_TYPES>, string>> = {
  bytes: 'holds bytes: serve them with a "bytes" mount of their own (see the declaration file\'s reference)',
  json: 'holds JSON whose shape the database does not say: declare it by hand as an "object" or "array" field with its fields (on SQLite, mapped with "json": true)',
  other: 'says nothing of its values by its type: declare its field by hand'
}

/** The draft of `catalogue`'s tables (of a `store` of that kind). */
export function draftFromCatalogue (catalogue: Catalogue, store: 'sqlite' | 'postgres', options: DatabaseDraftOptions = {}): Draft {
  const unknown = (options.tables ?? []).filter((name) => !catalogue.has(name))
  if (unknown.length > 0) throw new DraftError(`has no table or view ${unknown.map((name) => `"${name}"`).join(', ')}; it has: ${[...catalogue.keys()].join(', ') || 'none'}`)
  const chosen = options.tables ?? [...catalogue.keys()].sort()
  const notes: Note[] = options.schema === undefined ? [] : [{ pointer: '', note: `read from schema "${options.schema}": serve it with a DATABASE_URL that reads that schema (add ?schema=${options.schema}).` }]
  const records: Record<string, RecordDeclarationEntry> = {}
  const sources: Record<string, SourceDeclaration> = {}
  const mounts: MountDeclaration[] = []
  const names = { records: new Set<string>(), sources: new Set<string>(), mounts: new Set<string>() }
  for (const tableName of chosen) {
    const table = catalogue.get(tableName)!
    const key = keyOf(table)
    if (key === undefined) {
      notes.push({ pointer: '', note: `not drafted: ${table.view ? 'view' : 'table'} "${table.name}" has no primary key nor unique index, so no order names one row and pages of it could repeat or skip rows; add a key, or declare it by hand.` })
      continue
    }
    const recordName = uniqueName(pascal(singular(table.name)), names.records, 'Record')
    const recordAt = pointerOf('records', recordName)
    const fields = fieldsOf(table, key, `${recordAt}/fields`, notes)
    if (Object.keys(fields).length === 0) {
      notes.push({ pointer: '', note: `not drafted: table "${table.name}" has no column the draft can declare.` })
      names.records.delete(recordName.toLowerCase())
      continue
    }
    if (!key.every((column) => Object.hasOwn(fields, column))) {
      notes.push({ pointer: '', note: `not drafted: the key of "${table.name}" (${key.join(' + ')}) is left out of its fields (see its columns' notes), so no mount could name one of its rows.` })
      names.records.delete(recordName.toLowerCase())
      continue
    }
    records[recordName] = { fields }
    const sourceName = uniqueName(table.name, names.sources, 'rows')
    sources[sourceName] = { table: table.name, orderBy: key.length === 1 ? key[0] : [...key], ...(table.view ? { unique: [...key] } : {}) }
    const sourceAt = pointerOf('sources', sourceName)
    notes.push({ pointer: `${sourceAt}/orderBy`, note: `order guessed: ${table.view ? `a view publishes no keys; guessed that ${key.join(' + ')} names one row (say so in "unique")` : `the ${table.primaryKey.length > 0 ? 'primary key' : 'unique key'}`}, so that every row is served once across pages.` })
    mounts.push(...mountsOf(table, key, fields, { recordName, sourceName, store, index: mounts.length, names }, notes))
  }
  if (mounts.length === 0) notes.push({ pointer: '', note: 'nothing could be drafted to serve: see the notes above.' })
  return { declarations: { records, sources, mounts }, notes }
}

/** The columns no two rows share, by which the rows are ordered and one is named: the primary key, else a unique set; a view's guessed. */
function keyOf (table: TableInfo): readonly string[] | undefined {
  if (table.primaryKey.length > 0) return table.primaryKey
  const unique = table.unique.find((set) => set.every((name) => !table.columns.find((column) => column.name === name)!.nullable))
  if (unique !== undefined) return unique
  return table.view && table.columns.some((column) => column.name === 'id') ? ['id'] : undefined
}

/** The fields of the table's columns, each guessed marking a note; a column that cannot be drafted a note in its place. */
function fieldsOf (table: TableInfo, key: readonly string[], at: string, notes: Note[]): Record<string, FieldDeclaration> {
  const fields: Record<string, FieldDeclaration> = {}
  for (const column of table.columns) {
    if (!(column.kind in FIELD_TYPES)) {
      notes.push({ pointer: at, note: `column "${column.name}" (${column.type || 'no type'}) left out: it ${LEFT_OUT[column.kind as keyof typeof LEFT_OUT]}` })
      continue
    }
    fields[column.name] = fieldOf(column, FIELD_TYPES[column.kind as keyof typeof FIELD_TYPES], `${at}${pointerOf(column.name)}`, notes)
  }
  if (key.length === 1 && fields[key[0]] !== undefined && fields[key[0]].choices === undefined) {
    fields[key[0]] = { ...fields[key[0]], handle: true }
    notes.push({ pointer: `${at}${pointerOf(key[0])}/handle`, note: `handle guessed: "${key[0]}" is the ${table.primaryKey.length > 0 ? 'primary' : 'unique'} key; agents pass it on to other tools as it is.` })
  }
  if (Object.keys(fields).length === 0) return fields
  const label = LABEL_NAMES.find((name) => fields[name]?.type === 'string' && unmarked(fields[name]))
  if (label === undefined) {
    notes.push({ pointer: at.replace(/\/fields$/, ''), note: `no label guessed: no unmarked text column is called ${LABEL_NAMES.slice(0, 4).join(', ')} or alike; give the field that names a row "label: true".` })
  } else {
    fields[label] = { ...fields[label], label: true }
    notes.push({ pointer: `${at}${pointerOf(label)}/label`, note: `label guessed: "${label}" names the record to agents.` })
  }
  return fields
}

/** One column's field: its type, nullability, choices, and the marking its name or kind suggests. */
function fieldOf (column: ColumnInfo, type: NonNullable<FieldDeclaration['type']>, at: string, notes: Note[]): FieldDeclaration {
  const nullable = column.nullable ? { nullable: true } : {}
  if (column.values !== undefined && column.values.length > 0) {
    notes.push({ pointer: `${at}/choices`, note: 'choices from the database (its enum, or a CHECK ... IN list); each display guessed from its value: tell agents better words here.' })
    const choices = typeof column.values[0] === 'string' && column.values.every((value) => typeof value === 'string')
      ? Object.fromEntries(column.values.map((value) => [value, displayOf(value)]))
      : column.values.map((value) => ({ value, display: displayOf(value) }))
    return { choices, ...nullable }
  }
  if (looksHidden(column.name)) {
    notes.push({ pointer: `${at}/hidden`, note: `hidden guessed: "${column.name}" looks secret or personal, so agents are not shown it (plain clients still are: hidden is presentation, not secrecy; leave the column out of the file to serve it to no one).` })
    return { type, ...nullable, hidden: true }
  }
  if (type === 'date-time') {
    const stored = column.kind === 'timestamptz' ? 'it is stored with its time zone' : 'it is stored without an offset, read as UTC (SQLite\'s CURRENT_TIMESTAMP writes UTC); if it holds another zone\'s wall time, map it with "stored": "<IANA zone>"'
    notes.push({ pointer: `${at}/timestamp`, note: `timestamp guessed: agents see it in TIME_ZONE; ${stored}.` })
    return { type, ...nullable, timestamp: {} }
  }
  return { type, ...nullable }
}

/** The list mount and the record mount of one table. */
function mountsOf (table: TableInfo, key: readonly string[], fields: Readonly<Record<string, FieldDeclaration>>, names: { recordName: string, sourceName: string, store: 'sqlite' | 'postgres', index: number, names: { mounts: Set<string> } }, notes: Note[]): MountDeclaration[] {
  const url = `/${table.name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/_/g, '-').toLowerCase()}`
  const common = { record: names.recordName, source: names.sourceName }
  const words = table.name.replace(/_/g, ' ')
  const list: MountDeclaration = {
    kind: 'list',
    name: uniqueName(camel(`list ${table.name}`), names.names.mounts, 'listRows'),
    url,
    summary: `List the ${words}`,
    ...common,
    permissions: ['unrestricted']
  }
  notes.push({ pointer: `${pointerOf('mounts', names.index)}/permissions`, note: 'open to every caller: narrow it ("signed-in", or "scope:<name>") before serving anything private; the same for its record mount.' })
  const params: Record<string, ParamDeclaration> = Object.fromEntries(key.map((column) => [column, { type: fields[column].type === 'integer' ? 'integer' : fields[column].type === 'number' ? 'number' : 'string' }]))
  const retrieve: MountDeclaration = {
    kind: 'retrieve',
    name: uniqueName(camel(`get ${singular(table.name)}`), names.names.mounts, 'getRow'),
    url: `${url}/${key.map((column) => `:${column}`).join('/')}`,
    summary: `Get one of the ${words}`,
    ...common,
    permissions: ['unrestricted'],
    params
  }
  return [list, retrieve]
}

function unmarked (field: FieldDeclaration): boolean {
  return field.handle === undefined && field.hidden === undefined && field.timestamp === undefined && field.choices === undefined
}

/** A table's name made the name of one of its rows, by the commonest English rule: `categories` -> `category`, `books` -> `book`. */
function singular (name: string): string {
  if (/ies$/i.test(name)) return name.slice(0, -3) + 'y'
  if (/(ss|us|is)$/i.test(name)) return name
  if (/(ches|shes|xes|sses)$/i.test(name)) return name.slice(0, -2)
  return name.replace(/s$/i, '')
}
