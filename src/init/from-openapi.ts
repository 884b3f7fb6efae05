// A declaration file drafted from an upstream's OpenAPI 3.x document: each list operation an
// upstream list source and a list mount, its paging guessed; each get-by-id a record source and a
// retrieve mount; a record per item schema, its markings guessed; one upstream for the document.
// Pure: the document in, the draft and its notes out. Every guess, and everything skipped, is a note.
import type { MountDeclaration, ParamDeclaration, SourceDeclaration, UpstreamSourceDeclaration } from '../config-file/schema.js'
import { DraftError, type Draft } from './draft.js'
import { camel, pascal, uniqueName, wordsOf } from './guesses.js'
import { hasProperties, segment, type SchemaReading } from './openapi-fields.js'
import { guessPaging, type ListOperation } from './openapi-paging.js'
import { markHandle, recordOf, type DraftedRecord } from './openapi-records.js'
import { objectOf, resolve, textOf, type Json, type Note, type Resolved } from './openapi-refs.js'
import { schemesOf, upstreamOf } from './openapi-upstream.js'

export interface OpenApiDraftOptions {
  /** The upstream's name in the file (default: made from the document's title). */
  readonly upstream?: string
}

/** The gateway's own routes: an upstream path on one of them is not drafted. */
const RESERVED = /^\/(healthz|readyz|metrics|mcp|docs|openapi\.json)(\/|$)/
const MOUNT_NAME = /^[A-Za-z][A-Za-z0-9_]*$/
const WRITES = ['put', 'post', 'delete', 'patch']

/** The draft of a gateway serving the reads `document` (an OpenAPI 3.0 or 3.1 document, parsed) describes; throws a DraftError for any other document. */
export function draftFromOpenApi (document: unknown, options: OpenApiDraftOptions = {}): Draft {
  const root = openApiOf(document)
  const notes: Note[] = []
  const drafting: Drafting = {
    reading: { document: root, notes },
    records: {},
    components: new Map(),
    recordNames: new Set(),
    sources: {},
    mounts: [],
    mountNames: new Set(),
    schemes: new Set(),
    tags: new Set()
  }
  const writes: string[] = []
  for (const [path, item] of Object.entries(objectOf(root.paths) ?? {})) {
    const pathItem = resolve(root, item, `path ${path}`, notes)?.value
    writes.push(...WRITES.filter((method) => pathItem?.[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`))
    const get = objectOf(pathItem?.get)
    if (pathItem !== undefined && get !== undefined) draftOperation(path, pathItem, get, drafting)
  }
  if (writes.length > 0) notes.push({ pointer: '', note: `not drafted, since a draft holds the reads (declare each as an action by hand): ${writes.join(', ')}.` })
  if (drafting.mounts.length === 0) notes.push({ pointer: '', note: 'no operation could be drafted (each is said above): the file serves nothing yet.' })
  const name = uniqueName(options.upstream ?? wordsOf(textOf(objectOf(root.info)?.title) ?? '').join('-'), new Set(), 'upstream')
  const upstreams = drafting.mounts.length === 0 ? undefined : upstreamOf(root, name, drafting.schemes, `/upstreams/${segment(name)}`, notes)
  const basePath = upstreams?.basePath ?? ''
  const sources: Record<string, SourceDeclaration> = Object.fromEntries(Object.entries(drafting.sources).map(([source, declared]) => [source, { upstream: name, ...declared, path: `${basePath}${declared.path}` }]))
  const tags = tagsOf(root, drafting.tags)
  return {
    declarations: {
      ...(tags.length === 0 ? {} : { tags }),
      records: drafting.records,
      ...(upstreams === undefined ? {} : { upstreams: { [name]: upstreams.upstream } }),
      sources,
      mounts: withSchemaNames(drafting.mounts, drafting, notes)
    },
    notes
  }
}

interface Drafting {
  readonly reading: SchemaReading
  readonly records: Record<string, DraftedRecord>
  /** The record drafted from each schema component, by the component's name. */
  readonly components: Map<string, string>
  readonly recordNames: Set<string>
  /** The sources, by name, before the upstream is known: its name, and the path its server puts first. */
  readonly sources: Record<string, Omit<UpstreamSourceDeclaration, 'upstream'>>
  readonly mounts: MountDeclaration[]
  readonly mountNames: Set<string>
  /** The security schemes the drafted operations ask for. */
  readonly schemes: Set<string>
  readonly tags: Set<string>
}

/** The document, once it is an OpenAPI 3.x one. */
function openApiOf (document: unknown): Json {
  const root = objectOf(document)
  if (root !== undefined && typeof root.swagger === 'string') {
    throw new DraftError(`is a Swagger ${root.swagger} document: convert it to OpenAPI 3 first (swagger2openapi, or the Swagger Editor's conversion).`)
  }
  if (root === undefined || typeof root.openapi !== 'string' || !root.openapi.startsWith('3.')) {
    throw new DraftError(`is not an OpenAPI 3.x document: it has no "openapi": "3.x" at its top${root !== undefined && root.openapi !== undefined ? ` (it has ${JSON.stringify(root.openapi)})` : ''}.`)
  }
  return root
}

/** A GET drafted as a list or a record, or said skipped, with why. */
function draftOperation (path: string, pathItem: Json, operation: Json, drafting: Drafting): void {
  const { notes } = drafting.reading
  const skip = (why: string): void => { notes.push({ pointer: '', note: `GET ${path} not drafted: ${why}.` }) }
  const segments = path.split('/')
  const params = segments.filter((part) => part.includes('{'))
  if (params.some((part) => !/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(part))) return skip('each path parameter must be a whole segment named by letters, digits and _')
  if (RESERVED.test(path)) return skip('the gateway serves a route of its own there')
  const parameters = parametersOf(pathItem, operation, path, drafting.reading)
  const response = jsonResponse(operation, path, drafting.reading)
  if (response === undefined) return skip('its 200 response documents no JSON body')
  const list = listOf(response.body, path, drafting.reading)
  if (list !== undefined) {
    if (params.length > 0) return skip(`a list with path parameters (${params.join(', ')}): a list mount has none; declare it by hand`)
    const required = parameters.filter((parameter) => parameter.in === 'query' && parameter.required === true).map((parameter) => String(parameter.name))
    if (required.length > 0) return skip(`it requires the query parameter${required.length === 1 ? '' : 's'} ${required.join(', ')}, which a list source never sends`)
    const name = mountName(operation, path, drafting)
    const record = recordFor(list.item, `${pascal(name)}Item`, drafting)
    if (record === undefined) return skip('its items have no field the gateway can declare')
    const query = new Map(parameters.filter((parameter) => parameter.in === 'query').map((parameter) => [String(parameter.name), objectOf(parameter.schema) ?? {}]))
    const listed: ListOperation = { query, headers: response.headers, ...(list.body === undefined ? {} : { body: list.body }) }
    drafting.sources[name] = { path, paging: guessPaging(listed, `/sources/${name}/paging`, notes) }
    const unit = wordsOf(segments.filter((part) => !part.includes('{')).join('/').replace(/^.*\//, '')).join('_')
    return addMount({ kind: 'list', ...routeOf(operation, path, name, record), paging: { style: 'offset', unit: /^[a-z][a-z0-9_]*$/.test(unit) ? unit : 'items' } }, operation, drafting)
  }
  if (params.length === 0 || !path.endsWith('}') || !hasProperties(response.body.value, drafting.reading)) {
    return skip('its 200 response is neither a list of objects nor one object named by the path\'s last parameter')
  }
  const name = mountName(operation, path, drafting)
  const record = recordFor(response.body, pascal(name), drafting)
  if (record === undefined) return skip('its response has no field the gateway can declare')
  const named = params.map((part) => part.slice(1, -1))
  const last = named[named.length - 1]
  if (Object.hasOwn(drafting.records[record].fields, last)) markHandle(drafting.records[record].fields, last, `/records/${segment(record)}/fields`, drafting.reading)
  drafting.sources[name] = { path }
  const declared = new Map(parameters.filter((parameter) => parameter.in === 'path').map((parameter) => [String(parameter.name), parameter]))
  const typed = Object.fromEntries(named.map((param) => [param, paramOf(declared.get(param))]))
  addMount({ kind: 'retrieve', ...routeOf(operation, path, name, record), params: typed }, operation, drafting)
}

/** The operation's parameters (the path item's, replaced by its own of the same name and place), each resolved. */
function parametersOf (pathItem: Json, operation: Json, path: string, reading: SchemaReading): Json[] {
  const all = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])]
  const byPlace = new Map<string, Json>()
  for (const parameter of all) {
    const value = resolve(reading.document, parameter, `a parameter of GET ${path}`, reading.notes)?.value
    if (value === undefined) continue
    const schema = resolve(reading.document, value.schema, `parameter ${String(value.name)} of GET ${path}`, reading.notes)?.value
    byPlace.set(`${String(value.in)} ${String(value.name)}`, { ...value, schema })
  }
  return [...byPlace.values()]
}

/** The JSON body of the operation's 200 response, and the headers it documents. */
function jsonResponse (operation: Json, path: string, reading: SchemaReading): { body: Resolved, headers: string[] } | undefined {
  const responses = objectOf(operation.responses)
  const response = resolve(reading.document, responses?.['200'] ?? responses?.['2XX'], `the 200 response of GET ${path}`, reading.notes)?.value
  const content = objectOf(response?.content) ?? {}
  const media = Object.keys(content).find((type) => /^application\/(.+\+)?json\b/i.test(type))
  const body = media === undefined ? undefined : resolve(reading.document, objectOf(content[media])?.schema, `the body of GET ${path}`, reading.notes)
  return body === undefined ? undefined : { body, headers: Object.keys(objectOf(response?.headers) ?? {}) }
}

/** Where a list's rows are in a body: the body itself (an array), or its one array-of-objects field. */
function listOf (body: Resolved, path: string, reading: SchemaReading): { item: Resolved, body?: ListOperation['body'] } | undefined {
  const itemOf = (schema: Json | undefined): Resolved | undefined => {
    if (![schema?.type].flat().includes('array')) return undefined
    const item = resolve(reading.document, schema?.items, `the items of GET ${path}`, reading.notes)
    return item !== undefined && hasProperties(item.value, reading) ? item : undefined
  }
  const whole = itemOf(body.value)
  if (whole !== undefined) return { item: whole }
  const fields: Record<string, Json> = {}
  for (const [field, schema] of Object.entries(objectOf(body.value.properties) ?? {})) {
    const value = resolve(reading.document, schema, `field ${field} of GET ${path}'s body`, reading.notes)?.value
    if (value !== undefined) fields[field] = value
  }
  const arrays = Object.keys(fields).filter((field) => itemOf(fields[field]) !== undefined)
  if (arrays.length !== 1) return undefined
  return { item: itemOf(fields[arrays[0]]) as Resolved, body: { items: arrays[0], fields } }
}

/** The record drafted from `schema`: one per schema component, else one per operation. */
function recordFor (schema: Resolved, fallback: string, drafting: Drafting): string | undefined {
  const known = schema.name === undefined ? undefined : drafting.components.get(schema.name)
  if (known !== undefined) return known
  const name = uniqueName(schema.name ?? fallback, drafting.recordNames, fallback)
  const record = recordOf(schema.value, schema.name, `/records/${segment(name)}`, drafting.reading)
  if (record === undefined) return undefined
  drafting.records[name] = record
  if (schema.name !== undefined) drafting.components.set(schema.name, name)
  return name
}

/** The operation's name: its operationId where the file accepts it, else one made of it or of its path. */
function mountName (operation: Json, path: string, drafting: Drafting): string {
  const id = textOf(operation.operationId) ?? ''
  const wanted = [id, camel(id)].find((name) => MOUNT_NAME.test(name)) ?? camel(`get ${path}`)
  return uniqueName(wanted, drafting.mountNames, 'getRecords', MOUNT_NAME)
}

function routeOf (operation: Json, path: string, name: string, record: string): Pick<MountDeclaration & { kind: 'list' }, 'name' | 'url' | 'summary' | 'description' | 'tags' | 'record' | 'source' | 'permissions'> {
  const description = textOf(operation.description)?.trim()
  const summary = (textOf(operation.summary)?.trim() ?? '').split('\n')[0] || description?.split('\n')[0] || `GET ${path}`
  const tags = Array.isArray(operation.tags) ? operation.tags.filter((tag) => typeof tag === 'string') : []
  return {
    name,
    url: path.replace(/\{([^}]+)\}/g, ':$1'),
    summary,
    ...(description === undefined || description === '' || description === summary ? {} : { description }),
    ...(tags.length === 0 ? {} : { tags }),
    record,
    source: name,
    permissions: ['unrestricted']
  }
}

function addMount (mount: MountDeclaration, operation: Json, drafting: Drafting): void {
  const at = `/mounts/${drafting.mounts.length}`
  drafting.mounts.push(mount)
  drafting.reading.notes.push({ pointer: `${at}/permissions`, note: 'unrestricted: anyone may call it. Narrow it ("signed-in", or "scope:<name>") before serving it beyond your machine.' })
  for (const scheme of schemesOf(operation, drafting.reading.document)) drafting.schemes.add(scheme)
  for (const tag of mount.tags ?? []) drafting.tags.add(tag)
}

/** A path parameter's type (a string unless its schema says integer or number) and description. */
function paramOf (parameter: Json | undefined): ParamDeclaration {
  const schema = objectOf(parameter?.schema)
  const type = schema?.type === 'integer' || schema?.type === 'number' ? schema.type : 'string'
  const description = textOf(parameter?.description) ?? textOf(schema?.description)
  return { type, ...(description === undefined ? {} : { description }) }
}

/**
 * The mounts, each list of a record whose agent page differs from its first list's (another unit, or
 * a total where it had none) given a schema name of its own: one component name is one schema.
 */
function withSchemaNames (mounts: readonly MountDeclaration[], drafting: Drafting, notes: Note[]): MountDeclaration[] {
  const pages = new Map<string, string>()
  const taken = new Set([...drafting.recordNames])
  return mounts.map((mount, index) => {
    if (mount.kind !== 'list') return mount
    const paging = drafting.sources[mount.source].paging
    const page = `${JSON.stringify(mount.paging)} ${paging?.style === 'offset' || paging?.style === 'single' ? 'counted' : 'uncounted'}`
    const first = pages.get(mount.record)
    if (first === undefined) pages.set(mount.record, page)
    if (first === undefined || first === page) return mount
    const schemaName = uniqueName(pascal(mount.name), taken, `${mount.record}List`)
    notes.push({ pointer: `/mounts/${index}/schemaName`, note: `schemaName: its agent page differs from another list of ${mount.record} (its unit or its total), so it is published under a name of its own.` })
    return { ...mount, schemaName }
  })
}

/** The tags the mounts use that the document describes. */
function tagsOf (document: Json, used: ReadonlySet<string>): Array<{ name: string, description: string }> {
  const declared = Array.isArray(document.tags) ? document.tags.map(objectOf) : []
  return declared.flatMap((tag) => typeof tag?.name === 'string' && typeof tag.description === 'string' && used.has(tag.name) ? [{ name: tag.name, description: tag.description }] : [])
}
