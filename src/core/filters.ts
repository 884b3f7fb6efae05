// A list's filters: declared as data on the mount (`{ status: 'equals', posted_at: 'range' }`),
// each becomes closed arguments of its own (`status`; `posted_at_min` and `posted_at_max`;
// `number_prefix`), published with the rest of the query, and, once checked, conditions the
// source applies itself. Checked at registration: a filter on a field an agent is not shown, or
// of a type its kind cannot compare, or that the source cannot apply, is refused, naming it.
import Type, { type TProperties } from 'typebox'
import type { Projection } from '../projection/index.js'
import type { Condition, ConditionOp, Filterable } from '../sources/index.js'
import { MountError } from './mount.js'

/** `equals`: the field is the value; `range`: at least `_min`, at most `_max`; `prefix`: starts with `_prefix`. */
export type FilterKind = 'equals' | 'range' | 'prefix'

/** A list's filters, by top-level field: one kind, or several. */
export type Filters = Readonly<Record<string, FilterKind | readonly FilterKind[]>>

/** The filters of one mount, ready to serve. */
export interface CompiledFilters {
  /** Each filter's arguments, optional, for the closed query. */
  readonly parameters: TProperties
  /** Checked arguments -> the mount's own arguments, the conditions for the source, and the filter arguments sent. */
  readonly split: (args: Readonly<Record<string, unknown>>) => { args: Record<string, unknown>, where: Condition[], sent: string[] }
}

export interface FilterContext {
  /** Names the mount in refusals: `Route 'listInvoices'`. */
  readonly name: string
  /** The record's plain schema: what each field holds as stored. */
  readonly schema: { readonly properties: Readonly<Record<string, unknown>> }
  /** The mount's projection, overrides included: what an agent is shown. */
  readonly projection: Projection
  readonly source: Filterable
}

/** No filters: nothing published, every argument the mount's own. */
export const NO_FILTERS: CompiledFilters = Object.freeze({ parameters: {}, split: (args: Readonly<Record<string, unknown>>) => ({ args: { ...args }, where: [], sent: [] }) })

/** Compiles a mount's filters, or throws a MountError naming the first that cannot be served. */
export function compileFilters (filters: Filters | undefined, context: FilterContext): CompiledFilters {
  if (filters === undefined || Object.keys(filters).length === 0) return NO_FILTERS
  const arguments_: FilterArgument[] = []
  for (const [field, kinds] of Object.entries(filters)) {
    for (const kind of typeof kinds === 'string' ? [kinds] : kinds) arguments_.push(...argumentsOf(field, kind, context))
  }
  const parameters: TProperties = {}
  for (const argument of arguments_) {
    if (Object.hasOwn(parameters, argument.name)) throw new MountError(`${context.name}: two filters take the argument ${argument.name}; declare each kind once per field.`)
    parameters[argument.name] = Type.Optional(Type.Unsafe(argument.schema))
  }
  return {
    parameters,
    split: (checked) => {
      const where: Condition[] = []
      const sent: string[] = []
      for (const { name, field, op, value } of arguments_) {
        if (checked[name] === undefined) continue
        where.push({ field, op, value: value(checked[name] as string | number | boolean) })
        sent.push(name)
      }
      // The rest copied, not the whole copied and the filters deleted: a deleted property leaves V8's
      // object in its slow, dictionary mode, and every key this request makes from it pays for that.
      const args: Record<string, unknown> = {}
      for (const name of Object.keys(checked)) if (!sent.includes(name)) args[name] = checked[name]
      return { args, where, sent }
    }
  }
}

/** One argument of a filter: its name, its schema, the condition it makes. */
interface FilterArgument {
  readonly name: string
  readonly field: string
  readonly op: ConditionOp
  readonly schema: Record<string, unknown>
  /** The checked value as the source compares it. */
  readonly value: (checked: string | number | boolean) => string | number | boolean
}

/** What a field holds, as far as a filter compares it. */
export interface Shape {
  readonly type: 'string' | 'integer' | 'number' | 'boolean'
  readonly format?: string
  /** A choice field's values (never null: a query cannot send one). */
  readonly values?: readonly unknown[]
  /** Value -> display, for a choice field's description. */
  readonly titles: ReadonlyMap<unknown, string>
}

const SCALARS = new Set(['string', 'integer', 'number', 'boolean'])

const KINDS = new Set<string>(['equals', 'range', 'prefix'] satisfies FilterKind[])

/** What each kind compares, beside choices (equality only) and plain strings (equality and prefix). */
const RANGED = new Set(['integer', 'number', 'date', 'date-time'])

function argumentsOf (field: string, kind: FilterKind, context: FilterContext): FilterArgument[] {
  const refuse = (why: string): never => { throw new MountError(`${context.name}: the ${kind} filter on "${field}" ${why}.`) }
  // A declaration file's mistake reaches here untyped: a kind is one of the three, or refused.
  if (!KINDS.has(kind)) refuse('is of no kind a filter has: equals, range or prefix')
  if (!Object.hasOwn(context.schema.properties, field)) refuse('names no top-level field of the record')
  if (context.projection.fields.get(field)?.action === 'hide') {
    refuse('is on a field hidden from agents: its values would be learned by filtering; filter on a field agents are shown')
  }
  const shape = shapeOf(context.schema.properties[field]) ?? refuse('is on a field that holds no single scalar (a string, a number, an integer or a boolean)')
  const ops: ConditionOp[] = kind === 'equals' ? ['equals'] : kind === 'range' ? ['min', 'max'] : ['prefix']
  for (const op of ops) if (context.source.canFilter?.(field, op) !== true) refuse(`cannot be applied by the mount's source (it does not filter "${field}" by ${op})`)
  const what = shape.format ?? shape.type
  if (kind === 'equals') {
    return [{ name: field, field, op: 'equals', schema: equalsSchema(field, shape), value: shape.format === 'date-time' ? (value) => utcDateTime(value as string, 'equals') : (value) => value }]
  }
  if (kind === 'range') {
    if (shape.values !== undefined || !RANGED.has(what)) refuse(`needs an integer, a number, a date or a date-time field, not ${shape.values === undefined ? `a ${what}` : 'a choice'}`)
    return (['min', 'max'] as const).map((op) => ({
      name: `${field}_${op}`,
      field,
      op,
      schema: rangeSchema(field, shape, op),
      value: what === 'date-time' ? (value) => utcDateTime(value as string, op) : (value) => value
    }))
  }
  if (shape.type !== 'string' || shape.values !== undefined || shape.format !== undefined) refuse('needs a text field without a format or choices')
  return [{ name: `${field}_prefix`, field, op: 'prefix', schema: { type: 'string', minLength: 1, description: `Filter: only the records whose ${field} starts with this text (letter case counts).` }, value: (value) => value }]
}

/** What a field holds, when it holds one scalar (maybe nullable). */
export function shapeOf (schema: unknown): Shape | undefined {
  const { type, format, enum: listed, oneOf } = schema as { type?: unknown, format?: string, enum?: unknown[], oneOf?: Array<{ const?: unknown, title?: string }> }
  const types = (Array.isArray(type) ? type : [type]).filter((each) => each !== 'null')
  if (types.length !== 1 || !SCALARS.has(types[0] as string)) return undefined
  const titles = new Map((oneOf ?? []).filter((option) => option.title !== undefined && option.title !== String(option.const)).map((option) => [option.const, option.title as string]))
  const values = (listed ?? oneOf?.map((option) => option.const))?.filter((value) => value !== null)
  return { type: types[0] as Shape['type'], ...(format === undefined ? {} : { format }), ...(values === undefined ? {} : { values }), titles }
}

function equalsSchema (field: string, shape: Shape): Record<string, unknown> {
  if (shape.values !== undefined) {
    const listed = shape.values.map((value) => shape.titles.has(value) ? `${String(value)} (shown as "${shape.titles.get(value) as string}")` : String(value)).join(', ')
    return { type: shape.type, enum: shape.values, description: `Filter: only the records whose ${field} is this value, one of ${listed}: send the value, not what is shown.` }
  }
  const described = `Filter: only the records whose ${field} is exactly this.`
  if (shape.format === 'date-time') return { ...DATE_TIME, description: `${described} ${DATE_TIME_WORDS}` }
  return shape.type === 'string' ? { type: 'string', ...(shape.format === undefined ? {} : { format: shape.format }), description: described } : { type: shape.type, description: described }
}

function rangeSchema (field: string, shape: Shape, op: 'min' | 'max'): Record<string, unknown> {
  const bound = op === 'min' ? 'at least' : 'at most'
  if (shape.format === 'date-time') return { ...DATE_TIME, description: `Filter: only the records whose ${field} is ${op === 'min' ? 'at or after' : 'at or before'} this instant. ${DATE_TIME_WORDS}` }
  if (shape.format === 'date') return { type: 'string', format: 'date', description: `Filter: only the records whose ${field} is ${op === 'min' ? 'on or after' : 'on or before'} this day (YYYY-MM-DD).` }
  return { type: shape.type, description: `Filter: only the records whose ${field} is ${bound} this.` }
}

const DATE_TIME = { type: 'string', format: 'date-time' } as const
const DATE_TIME_WORDS = 'An ISO 8601 date-time with its offset, such as 2026-01-31T13:05:09Z; compared in UTC, to the second.'

/**
 * A checked date-time as the store holds one: UTC, to the second (`2026-01-31T12:05:09Z`). A
 * fraction of a second rounds the bound inward (up for `min`, down for `max`), so a bound between
 * two stored seconds admits what it should; a leap second is the second after :59.
 */
function utcDateTime (text: string, op: ConditionOp): string {
  const leap = /:60(?=(\.\d+)?(Z|[+-]))/i.test(text)
  const parsed = Date.parse(leap ? text.replace(/:60(?=(\.\d+)?(Z|[+-]))/i, ':59') : text) + (leap ? 1000 : 0)
  const seconds = op === 'min' ? Math.ceil(parsed / 1000) : op === 'max' ? Math.floor(parsed / 1000) : parsed / 1000
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z')
}
