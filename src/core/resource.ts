// From a mount to a resource: everything that can be computed once (the projection, the paging
// style, the schemas of both variants, the row serializer, what it can refuse) is computed here,
// at registration, and a mount that cannot be served safely is refused here, naming it.
import { createHash } from 'node:crypto'
import Type, { type TObject, type TProperties } from 'typebox'
import { byteWindowing, isUtf8Text, pagingStyle, type PagingStyle } from '../paging/index.js'
import { isWindowSource } from '../sources/index.js'
import { needsPrincipal, type Permission } from '../permissions.js'
import { buildProjection, type JsonSchema } from '../projection/index.js'
import { argumentChecker } from './arguments.js'
import { compileFilters } from './filters.js'
import { compileRowRule } from './row-rule.js'
import type { ProblemCode } from './errors.js'
import type { RecordDeclaration } from '../declare/index.js'
import { MountError, type Mount, type MountSettings } from './mount.js'
import { byteBodies, listBodies, recordBodies, textBodies, type Bodies } from './schemas.js'
import { serveBytes } from './serve-bytes.js'
import { refusingNulls } from './stored-values.js'
import { compileSerializer } from './serializer.js'
import { serveList, serveRecord, serveText, type Call, type Served } from './serve.js'
import { compileSort } from './sort.js'
import { validators } from './validators.js'

/** A mount ready to serve: what a transport publishes, and the flow it calls. */
export interface Resource {
  readonly kind: Mount['kind']
  /** The operation's name (`listBooks`), its OpenAPI operationId. */
  readonly name: string
  /** The path template, e.g. `/books/:id`. */
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly permissions: readonly Permission[]
  /** The query a caller may send: the declared arguments plus the paging style's parameters, closed. */
  readonly query: TObject
  /** The path parameters, if the resource has any. */
  readonly params?: TObject
  /** The body each audience is served. */
  readonly bodies: Bodies
  /** A byte resource's media type, as a plain client is served it. */
  readonly mediaType?: string
  /** The problems it can answer with besides a malformed request. */
  readonly problems: readonly ProblemCode[]
  /** What its records afford (a list's or a record's), each perhaps bound to an action. */
  readonly affordances?: RecordDeclaration<any>['affordances']
  serve: (call: Call) => Promise<Served>
}

export function compileMount (mount: Mount, settings: MountSettings): Resource {
  if (mount.permissions.length === 0) {
    throw new MountError(`Route '${mount.name}': declare its permission checks; an open route says so with \`unrestricted\`.`)
  }
  const common = {
    kind: mount.kind,
    name: mount.name,
    url: mount.url,
    summary: mount.summary,
    description: mount.description,
    tags: mount.tags,
    permissions: mount.permissions,
    problems: problemsOf(mount)
  }
  const compile = (settings.validators ?? validators()).arguments
  if (mount.kind === 'text') {
    const style = windowStyle(mount, pagingStyle(mount.paging ?? { style: 'lines' }))
    const query = closedQuery(mount.arguments, style.parameters)
    const plan = { source: mount.source, style, url: mount.url, check: argumentChecker({ query, params: mount.params, paging: style }, compile) }
    return { ...common, query, params: mount.params, bodies: textBodies(style), serve: (call) => serveText(plan, call) }
  }
  if (mount.kind === 'bytes') {
    const windowing = byteWindowing(mount.paging)
    windowStyle(mount, windowing)
    const query = closedQuery(mount.arguments, windowing.parameters)
    const check = argumentChecker({ query, params: mount.params, paging: windowing }, compile)
    const plan = { source: mount.source, windowing, mediaType: mount.mediaType, text: isUtf8Text(mount.mediaType), url: mount.url, check }
    return { ...common, query, params: mount.params, bodies: byteBodies(windowing.schema), mediaType: mount.mediaType, serve: (call) => serveBytes(plan, call) }
  }
  const projection = buildProjection(mount.declaration.schema, { name: `Route '${mount.name}'`, overrides: mount.overrides, timeZone: settings.timeZone })
  const items = recordBodies(mount.declaration, projection, settings, mount.schemaName)
  const present = refusingNulls(mount.declaration, mount.declaration.present)
  const fields = { name: `Route '${mount.name}'`, schema: mount.declaration.schema, projection }
  const { affordances } = mount.declaration
  if (mount.kind === 'retrieve') {
    const rowRule = compileRowRule(mount.rowRule, { ...fields, permissions: mount.permissions })
    const query = closedQuery(mount.arguments, {})
    const plan = { source: mount.source, present, projection, rowRule, check: argumentChecker({ query, params: mount.params }, compile) }
    return { ...common, ...described(mount, rowRule.sentence), query, params: mount.params, bodies: items, affordances, serve: (call) => serveRecord(plan, call) }
  }
  const filters = compileFilters(mount.filters, { ...fields, source: mount.source })
  const rowRule = compileRowRule(mount.rowRule, { ...fields, permissions: mount.permissions, source: mount.source, filtered: Object.keys(mount.filters ?? {}) })
  const taken = [...Object.keys(mount.arguments?.properties ?? {}), ...Object.keys(filters.parameters)]
  const sort = compileSort(mount.sort, { ...fields, source: isWindowSource(mount.source) ? undefined : mount.source, taken })
  const style = windowStyle(mount, pagingStyle(mount.paging), { ...filters.parameters, ...sort.parameters })
  const query = closedQuery(mount.arguments, { ...filters.parameters, ...sort.parameters, ...style.parameters })
  const serializeRow = compileSerializer({ schema: mount.declaration.schema })
  const fingerprint = createHash('sha256').update(JSON.stringify(mount.declaration.schema)).digest('base64url').slice(0, 16)
  const plan = { source: mount.source, present, projection, rowRule, style, serializeRow, filters, sort, fingerprint, kept: settings.responses?.scope(), check: argumentChecker({ query, paging: style }, compile) }
  return {
    ...common,
    ...described(mount, rowRule.sentence),
    query,
    bodies: listBodies(items, envelopeOf(mount, style), mount.schemaName ?? mount.declaration.name),
    affordances,
    serve: (call) => serveList(plan, call)
  }
}

/** The style, once no declared argument (nor filter or sort argument) is named like one of its parameters, nor a filter argument like a declared one. */
function windowStyle<Style extends Pick<PagingStyle, 'parameters'>> (mount: Mount, style: Style, filtered: TProperties = {}): Style {
  const declared = Object.keys(mount.arguments?.properties ?? {})
  const shadowed = [...declared, ...Object.keys(filtered)].filter((name) => Object.hasOwn(style.parameters, name))
  if (shadowed.length > 0) {
    const named = shadowed.length === 1 ? `${shadowed[0]} is a parameter` : `${shadowed.join(', ')} are parameters`
    throw new MountError(`Route '${mount.name}': ${named} of its paging style; name the argument otherwise.`)
  }
  const twice = declared.filter((name) => Object.hasOwn(filtered, name))
  if (twice.length > 0) throw new MountError(`Route '${mount.name}': ${twice.join(', ')} is both a declared argument and a filter's; name the argument otherwise.`)
  return style
}

/** The envelope's schema: a list read a window at a time publishes a total only when it has one. */
function envelopeOf (mount: Mount & { kind: 'list' }, style: PagingStyle): (item: JsonSchema) => JsonSchema {
  const { source } = mount
  if (!isWindowSource(source)) return (item) => style.schema(item)
  const uncounted = style.uncounted
  if (uncounted === undefined) {
    throw new MountError(`Route '${mount.name}': its source is read a window at a time, without counting first; page it with the offset style.`)
  }
  return (item) => uncounted.schema(item, source.totals)
}

/** The mount's description, told whose rows it serves when a row rule chooses them (the summary stands in for a missing one). */
function described (mount: Mount, sentence: string | undefined): Pick<Resource, 'description'> {
  if (sentence === undefined) return { description: mount.description }
  return { description: `${mount.description ?? mount.summary} ${sentence}` }
}

/** The declared arguments plus the filters' and the sort's arguments and the style's parameters; anything else is refused. */
function closedQuery (declared: TObject | undefined, parameters: TProperties): TObject {
  return Type.Object({ ...declared?.properties, ...parameters }, { additionalProperties: false })
}

/** A 401 and a 403 only where its checks ask for a key; a 404 where it names one thing; its source's. */
function problemsOf (mount: Mount): ProblemCode[] {
  const sourced = mount.kind === 'text' ? undefined : mount.source.problems
  return [
    'AG_INVALID_ARGUMENTS',
    'AG_UNKNOWN_AUDIENCE',
    ...(needsPrincipal(mount.permissions) ? ['AG_UNAUTHORIZED', 'AG_FORBIDDEN'] as const : []),
    ...((mount.kind === 'list' || mount.kind === 'retrieve') && mount.rowRule !== undefined ? ['AG_CLAIM_REQUIRED'] as const : []),
    ...(mount.kind === 'list' ? [] : ['AG_NOT_FOUND'] as const),
    'AG_NOT_ACCEPTABLE',
    'AG_RATE_LIMITED',
    // A store's: a whole list it streams counts against its caller's share of the readers.
    ...(sourced ?? (mount.kind === 'list' ? ['AG_TOO_MANY_STREAMS', 'AG_STORE_UNAVAILABLE'] as const : ['AG_STORE_UNAVAILABLE'] as const)),
    // A record's rows are refused when they hold what the record does not admit (stored-values.ts); an upstream's already are, as its fault.
    ...(sourced === undefined && (mount.kind === 'list' || mount.kind === 'retrieve') ? ['AG_STORED_VALUE_INVALID'] as const : []),
    'AG_OVERLOADED'
  ]
}
