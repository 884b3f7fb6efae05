// A loaded file compiled to the very mounts TypeScript declares (records, sources, `app.mount`'s
// definitions), checked against the database it will read and mounted. Every problem (the schema's,
// the database's, the core's refusal of a mount) is collected, pointed at in the file, and thrown
// together. An entry the schema refused is not compiled, and naming it is no further problem.
import Type, { type TObject, type TSchema } from 'typebox'
import type { Mount, MountError } from '../core/mount.js'
import type { Validators } from '../core/validators.js'
import type { Marking, RecordDeclaration } from '../declare/index.js'
import { scope, signedIn, unrestricted, type Permission } from '../permissions.js'
import { upstreamAction, upstreamClient, upstreamPath, type UpstreamClient, type UpstreamObserver } from '../sources/upstream/index.js'
import { readCatalogue, type Catalogue } from '../store/catalogue/index.js'
import type { Store } from '../store/store.js'
import { declarationFileError, pointerOf, type Issue } from './errors.js'
import type { LoadedFile } from './loader.js'
import { bodyOf, compileRecords, markingOf } from './records.js'
import type { ActionMountDeclaration, BytesMountDeclaration, MountDeclaration, ParamDeclaration, RecordMountDeclaration, SourceDeclaration, TextMountDeclaration, UpstreamDeclaration, UpstreamSourceDeclaration } from './schema.js'
import type { ActionInput, ActionMount } from '../core/action.js'
import { storeAction } from '../sources/store-action.js'
import { compileStatement } from './statements.js'
import { tableBytes, tableOf, tableSource, tableText, upstreamSource, type Sourced } from './sources.js'

/** A mount, with where the file declares it (to point at a refusal `app.mount` raises). */
export interface DeclaredMount {
  readonly mount: Mount | ActionMount
  readonly at: string
}

export interface Compiled {
  readonly tags: ReadonlyArray<{ readonly name: string, readonly description: string }>
  readonly mounts: readonly DeclaredMount[]
  /** Closes the upstreams' clients. */
  close: () => Promise<void>
}

export interface CompileContext {
  readonly store: Pick<Store<any>, 'db' | 'kind' | 'stream' | 'counts'> & Partial<Pick<Store<any>, 'versionTag' | 'dataVersion'>>
  /** Where `${NAME}` in an upstream's origin and headers is read from. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Told what an upstream got wrong. */
  readonly log: { warn: (details: object, message: string) => void }
  /** Told of every upstream call (metrics). */
  readonly upstreamObserver?: UpstreamObserver
  /** The app's checks (`app.validators`), which compile the upstream sources' row checks; absent, each source has a set of its own. */
  readonly validators?: Validators
  /** Serves each compiled mount (`app.mount`); what it refuses is a problem of the file, at the mount. */
  readonly mount?: (mount: Mount | ActionMount) => void
}

const PERMISSIONS: Readonly<Record<string, Permission>> = { 'signed-in': signedIn, unrestricted }

/** The file's mounts, each given to `context.mount`; throws a DeclarationFileError naming every problem, before anything is served. */
export async function compileDeclarations (file: LoadedFile, context: CompileContext): Promise<Compiled> {
  const { declarations } = file
  const issues: Issue[] = [...file.issues]
  const records = compileRecords(declarations.records, issues)
  const clients = upstreamClients(declarations.upstreams ?? {}, context, issues)
  const close = async (): Promise<void> => { await Promise.all([...clients.values()].map(async (client) => { await client.close() })) }
  const tables = Object.values(declarations.sources).some((source) => 'table' in source) ? await readCatalogue(context.store) : new Map()
  // Every table source's table, read by a mount or not (a mount reading it says the same, said once).
  for (const [name, source] of Object.entries(declarations.sources)) if ('table' in source) tableOf(source, tables, pointerOf('sources', name), issues)
  const mounts: DeclaredMount[] = []
  const urls = new Map<string, number>()
  const names = new Map<string, number>()
  declarations.mounts.forEach((declared, index) => {
    const at = pointerOf('mounts', index)
    if (file.refused.has(at)) return
    once(urls, routeKey(declared.url), index, `${at}/url`, `serves the URL of mount ${'#'}`, issues)
    once(names, declared.name, index, `${at}/name`, `is the name of mount ${'#'}`, issues)
    const known = { records, clients, tables }
    const mount = declared.kind === 'text' || declared.kind === 'bytes'
      ? columnMountOf(declared, at, known, file, context, issues)
      : declared.kind === 'action' ? actionOf(declared, at, known, file, context, issues) : mountOf(declared, at, known, file, context, issues)
    if (mount !== undefined) mounts.push({ mount, at })
  })
  for (const { mount, at } of mounts) {
    try {
      context.mount?.(mount)
    } catch (error) {
      // Pointed at the refused value itself where the refusal names one (a sortable field).
      issues.push({ pointer: `${at}${(error as MountError).at ?? ''}`, message: (error as Error).message })
    }
  }
  if (issues.length > 0) {
    await close()
    throw declarationFileError(file.path, issues, file.locate)
  }
  return { tags: declarations.tags ?? [], mounts, close }
}

interface Known {
  readonly records: ReadonlyMap<string, RecordDeclaration>
  readonly clients: ReadonlyMap<string, UpstreamClient>
  readonly tables: Catalogue
}

/** A text or bytes mount: one column of the table row its path parameters name. */
function columnMountOf (declared: TextMountDeclaration | BytesMountDeclaration, at: string, known: Known, file: LoadedFile, context: CompileContext, issues: Issue[]): Mount | undefined {
  const { sources } = file.declarations
  const source = Object.hasOwn(sources, declared.source) ? sources[declared.source] : undefined
  if (source === undefined && refusedEntry(file, 'sources', declared.source)) return undefined
  if (source === undefined || 'upstream' in source) {
    const what = declared.kind === 'text' ? 'a text reads' : 'bytes are read from'
    issues.push({ pointer: `${at}/source`, message: `${what} a table source; ${source === undefined ? 'it names none declared' : `"${declared.source}" is an upstream's`}` })
    return undefined
  }
  const params = Object.keys(declared.params ?? {})
  const reading = { column: declared.kind === 'text' ? declared.text : declared.bytes, params, at: pointerOf('sources', declared.source) }
  const common = {
    ...routeOf(declared),
    ...(declared.params === undefined ? {} : { params: paramsOf(declared.params) })
  }
  if (declared.kind === 'bytes') {
    const bytes = tableBytes(source, reading, context.store, known.tables, issues)
    if (bytes === undefined) return undefined
    return { kind: 'bytes', ...common, source: bytes, mediaType: declared.mediaType, ...(declared.paging === undefined ? {} : { paging: declared.paging }) }
  }
  const text = tableText(source, reading, context.store, known.tables, issues)
  if (text === undefined) return undefined
  return { kind: 'text', ...common, source: text, ...(declared.paging === undefined ? {} : { paging: declared.paging }) }
}

/** What every mount says of its route. */
function routeOf (declared: MountDeclaration): Pick<Mount, 'name' | 'url' | 'summary' | 'description' | 'tags' | 'permissions'> {
  return {
    name: declared.name,
    url: declared.url,
    summary: declared.summary,
    ...(declared.description === undefined ? {} : { description: declared.description }),
    ...(declared.tags === undefined ? {} : { tags: declared.tags }),
    permissions: declared.permissions.map((name) => name.startsWith('scope:') ? scope(name.slice('scope:'.length)) : PERMISSIONS[name])
  }
}

/** The record and the source a mount (or an action) names, each a problem when it names none declared. */
function recordAndSource (declared: { readonly record: string, readonly source: string }, at: string, known: Known, file: LoadedFile, issues: Issue[]): { record?: RecordDeclaration, source?: SourceDeclaration } {
  const { declarations } = file
  const record = known.records.get(declared.record)
  if (!Object.hasOwn(declarations.records, declared.record) && !refusedEntry(file, 'records', declared.record)) {
    issues.push({ pointer: `${at}/record`, message: `names no declared record; declared: ${Object.keys(declarations.records).join(', ')}` })
  }
  const source = Object.hasOwn(declarations.sources, declared.source) ? declarations.sources[declared.source] : undefined
  if (source === undefined && !refusedEntry(file, 'sources', declared.source)) issues.push({ pointer: `${at}/source`, message: `names no declared source; declared: ${Object.keys(declarations.sources).join(', ')}` })
  return { record, source }
}

/**
 * An action: on one row of a table source, the row its path parameters name is read in the
 * transaction (its affordance checked on it), the statements run, and the row is read again as the
 * answer (as it was, when the statements deleted it); on an upstream source, the call sent to it.
 */
function actionOf (declared: ActionMountDeclaration, at: string, known: Known, file: LoadedFile, context: CompileContext, issues: Issue[]): ActionMount | undefined {
  const { record, source } = recordAndSource(declared, at, known, file, issues)
  const body = bodyOf(declared.body, `${at}/body`, issues)
  const takes = new Set([...Object.keys(declared.params), ...Object.keys(declared.body), NOW])
  // Statements take every name as one parameter: a body field may not shadow another.
  const statementsRun = declared.statements !== undefined
  for (const name of Object.keys(declared.body)) {
    if ((statementsRun && name === NOW) || Object.hasOwn(declared.params, name)) issues.push({ pointer: `${at}/body/${pointerOf(name).slice(1)}`, message: `is ${name === NOW ? 'the statements\' own parameter :now' : 'a path parameter too'}; name the field otherwise` })
  }
  const statements = (declared.statements ?? []).map((text, index) => {
    const statement = compileStatement(text)
    const unknown = statement.names.filter((name) => !takes.has(name))
    if (unknown.length > 0) issues.push({ pointer: `${at}/statements/${index}`, message: `names ${unknown.map((name) => `:${name}`).join(', ')}, which is no path parameter, body field or :now; it takes ${[...takes].map((name) => `:${name}`).join(', ')}` })
    return statement
  })
  if (record === undefined || source === undefined) return undefined
  const common = {
    kind: 'action' as const,
    ...routeOf(declared),
    ...(declared.method === undefined ? {} : { method: declared.method }),
    params: paramsOf(declared.params),
    body,
    ...(declared.maxBodyBytes === undefined ? {} : { maxBodyBytes: declared.maxBodyBytes }),
    result: record,
    ...(declared.creates === undefined ? {} : { creates: declared.creates }),
    ...(declared.destructive === undefined ? {} : { destructive: declared.destructive }),
    ...(declared.idempotent === undefined ? {} : { idempotent: declared.idempotent })
  }
  if ('upstream' in source) return upstreamActionOf(declared, source, common, at, known, file, context, issues)
  if (declared.statements === undefined) {
    issues.push({ pointer: at, message: 'an action on a table source runs statements; give it "statements"' })
    return undefined
  }
  const reading = { kind: 'retrieve' as const, record, params: Object.keys(declared.params), at: pointerOf('sources', declared.source), mountAt: at, recordAt: pointerOf('records', declared.record) }
  const { one } = tableSource(source, reading, context.store, known.tables, issues)
  if (one === undefined) return undefined
  return {
    ...common,
    ...(declared.affords === undefined ? {} : { affords: { declaration: record, affordance: declared.affords } }),
    target: storeAction(context.store, {
      subject: async (tx, input: ActionInput) => await one(tx, input.params),
      act: async (tx, { params, body }: ActionInput, before: Record<string, unknown>) => {
        const values = { ...params, ...body, [NOW]: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }
        for (const statement of statements) await statement.bind(values).execute(tx)
        return await one(tx, params) ?? before
      }
    })
  }
}

/**
 * An action sent to an upstream: the source's path filled with the path parameters, the action's
 * method and body, the answer read as the record where the source says its fields are. It runs no
 * statements, and reads no row to check an affordance on: the upstream decides.
 */
function upstreamActionOf (declared: ActionMountDeclaration, source: UpstreamSourceDeclaration, common: Omit<ActionMount, 'target'>, at: string, known: Known, file: LoadedFile, context: CompileContext, issues: Issue[]): ActionMount | undefined {
  if (declared.statements !== undefined) issues.push({ pointer: `${at}/statements`, message: `"${declared.source}" is an upstream's source: the upstream acts, and no statement runs` })
  if (declared.affords !== undefined) issues.push({ pointer: `${at}/affords`, message: 'an action sent to an upstream reads no record to check an affordance on: the upstream decides' })
  const sourceAt = pointerOf('sources', declared.source)
  // As a record's read: its path filled by the action's path parameters, one record, not pages of them.
  const unknown = [...source.path.matchAll(/\{([^}]*)\}/g)].map((match) => match[1]).filter((name) => !Object.hasOwn(declared.params, name))
  if (unknown.length > 0) issues.push({ pointer: `${sourceAt}/path`, message: `names ${unknown.map((name) => `{${name}}`).join(', ')}, which are not path parameters of the action at ${at}` })
  if (source.paging !== undefined) issues.push({ pointer: `${at}/source`, message: `"${declared.source}" is a list's source (it says its "paging"): an action is sent to one path` })
  const client = clientOf(source, sourceAt, known, file, issues)
  if (client === undefined || declared.statements !== undefined || declared.affords !== undefined || unknown.length > 0 || source.paging !== undefined) return undefined
  const path = upstreamPath(source.path)
  return {
    ...common,
    target: upstreamAction({
      client,
      ...(declared.method === undefined ? {} : { method: declared.method }),
      path: ({ params }: ActionInput) => path(params),
      declaration: common.result,
      ...(source.fields === undefined ? {} : { fields: source.fields }),
      ...(source.item === undefined ? {} : { item: source.item }),
      log: context.log,
      ...(context.validators === undefined ? {} : { validators: context.validators })
    })
  }
}

/** The client of the upstream a source reads, or undefined (a problem when the file declares no such upstream). */
function clientOf (source: UpstreamSourceDeclaration, at: string, known: Known, file: LoadedFile, issues: Issue[]): UpstreamClient | undefined {
  const client = known.clients.get(source.upstream)
  const upstreams = file.declarations.upstreams ?? {}
  if (client === undefined && !Object.hasOwn(upstreams, source.upstream) && !refusedEntry(file, 'upstreams', source.upstream)) {
    issues.push({ pointer: `${at}/upstream`, message: `names no declared upstream; declared: ${Object.keys(upstreams).join(', ') || 'none'}` })
  }
  return client
}

/** The statements' own parameter: the instant the action acts, in UTC to the second. */
const NOW = 'now'

function mountOf (declared: RecordMountDeclaration, at: string, known: Known, file: LoadedFile, context: CompileContext, issues: Issue[]): Mount | undefined {
  const { record, source } = recordAndSource(declared, at, known, file, issues)
  const overrides = overridesOf(declared, at, issues)
  if (record === undefined || source === undefined) return undefined
  for (const field of overrides.keys()) {
    if (!Object.hasOwn(record.schema.properties, field)) issues.push({ pointer: `${at}/overrides/${pointerOf(field).slice(1)}`, message: `names no field of record ${record.name}` })
  }
  const params = declared.kind === 'retrieve' ? Object.keys(declared.params) : []
  const reading = { kind: declared.kind, record, params, at: pointerOf('sources', declared.source), mountAt: at, recordAt: pointerOf('records', declared.record) }
  let sourced: Sourced
  if ('upstream' in source) {
    const client = clientOf(source, reading.at, known, file, issues)
    if (client === undefined) return undefined
    sourced = upstreamSource(source, reading, client, context, issues)
  } else {
    sourced = tableSource(source, reading, context.store, known.tables, issues)
  }
  const common = {
    ...routeOf(declared),
    declaration: record,
    ...(overrides.size === 0 ? {} : { overrides: Object.fromEntries(overrides) }),
    ...(declared.schemaName === undefined ? {} : { schemaName: declared.schemaName }),
    ...(declared.rowRule === undefined ? {} : { rowRule: declared.rowRule })
  }
  if (declared.kind === 'list') {
    if (sourced.list === undefined) return undefined
    const { paging, filters, sort } = declared
    return { ...common, kind: 'list', source: sourced.list, ...(paging === undefined ? {} : { paging }), ...(filters === undefined ? {} : { filters }), ...(sort === undefined ? {} : { sort }) }
  }
  return sourced.record === undefined ? undefined : { ...common, kind: 'retrieve', source: sourced.record, params: paramsOf(declared.params) }
}

/** The schema admits one marking per override: `{ "handle": false }` alone says nothing, and changes nothing. */
function overridesOf (declared: RecordMountDeclaration, at: string, issues: Issue[]): Map<string, Marking> {
  const overrides = new Map<string, Marking>()
  for (const [field, markings] of Object.entries(declared.overrides ?? {})) {
    const marking = markingOf(markings, `${at}/overrides/${pointerOf(field).slice(1)}`, issues)
    if (marking !== undefined) overrides.set(field, marking)
  }
  return overrides
}

function paramsOf (params: Readonly<Record<string, ParamDeclaration>>): TObject {
  const properties: Record<string, TSchema> = {}
  for (const [name, { type, ...options }] of Object.entries(params)) {
    properties[name] = type === 'string' ? Type.String(options) : type === 'integer' ? Type.Integer(options) : Type.Number(options)
  }
  return Type.Object(properties)
}

function upstreamClients (upstreams: Readonly<Record<string, UpstreamDeclaration>>, context: CompileContext, issues: Issue[]): Map<string, UpstreamClient> {
  const clients = new Map<string, UpstreamClient>()
  for (const [name, declared] of Object.entries(upstreams)) {
    const at = pointerOf('upstreams', name)
    const before = issues.length
    const origin = interpolated(declared.origin, `${at}/origin`, context.env, issues)
    const headers = Object.fromEntries(Object.entries(declared.headers ?? {}).map(([header, value]) => [header, interpolated(value, `${at}/headers/${pointerOf(header).slice(1)}`, context.env, issues)]))
    if (issues.length > before) continue
    try {
      clients.set(name, upstreamClient({ ...declared, name, origin, headers, log: context.log, observer: context.upstreamObserver }))
    } catch (error) {
      issues.push({ pointer: at, message: (error as Error).message })
    }
  }
  return clients
}

/** `${NAME}` replaced by the environment variable NAME: credentials stay out of the file. */
function interpolated (value: string, at: string, env: CompileContext['env'], issues: Issue[]): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const set = env[name]
    if (set === undefined || set === '') issues.push({ pointer: at, message: `reads the environment variable ${name}, which is not set` })
    return set ?? ''
  })
}

/** Whether the schema refused the entry `name` of `part`: naming it is then no further problem. */
function refusedEntry (file: LoadedFile, part: 'records' | 'sources' | 'upstreams', name: string): boolean {
  return file.refused.has(pointerOf(part, name))
}

/** A URL as the router sees it: `/books/:id` and `/books/:key` are one route. */
function routeKey (url: string): string {
  return url.replace(/:[^/]+/g, ':')
}

function once (seen: Map<string, number>, key: string, index: number, pointer: string, message: string, issues: Issue[]): void {
  const first = seen.get(key)
  if (first === undefined) seen.set(key, index)
  else issues.push({ pointer, message: `${message.replace('#', String(first))} too (/mounts/${first}): each mount has its own` })
}
