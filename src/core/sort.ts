// A list's sort: declared as data on the mount (`{ fields: ['title', 'published_at'] }`), it becomes
// one closed argument, `sort`, taking `title`, `-title`, `published_at` or `-published_at`,
// published with the rest of the query and, once checked, handed to the source, which orders by
// the field then by its own order key. Checked at registration: a field an agent is not shown,
// that holds no scalar, whose text does not order as its values do, or that the source cannot
// order by is refused, naming it.
import Type, { type TProperties } from 'typebox'
import type { Projection } from '../projection/index.js'
import type { Sort, Sortable } from '../sources/index.js'
import { shapeOf } from './filters.js'
import { MountError } from './mount.js'

/** The argument a sort takes. */
export const SORT_ARGUMENT = 'sort'

/** A list's sortable fields, and the order served when a call sends none (default: the list's own). */
export interface SortOptions {
  /** Top-level fields agents are shown, each holding one scalar. */
  readonly fields: readonly string[]
  /** `field` (ascending) or `-field` (descending), of one of `fields`. */
  readonly default?: string
}

/** The sort of one mount, ready to serve. */
export interface CompiledSort {
  /** The `sort` argument, optional, for the closed query (none without sortable fields). */
  readonly parameters: TProperties
  /** Checked arguments -> the others, the order for the source (the default's when none is sent), and `sort` if it was sent. */
  readonly split: (args: Readonly<Record<string, unknown>>) => { args: Record<string, unknown>, sort?: Sort, sent: string[] }
}

export interface SortContext {
  /** Names the mount in refusals: `Route 'listBooks'`. */
  readonly name: string
  /** The record's plain schema: what each field holds as stored. */
  readonly schema: { readonly properties: Readonly<Record<string, unknown>> }
  /** The mount's projection, overrides included: what an agent is shown. */
  readonly projection: Projection
  /** Absent for a list read a window at a time (an upstream API's): it is read in the upstream's own order. */
  readonly source?: Sortable
  /** The arguments the mount already takes (declared, and its filters'). */
  readonly taken: readonly string[]
}

/** No sort: nothing published, the list in its source's own order. */
export const NO_SORT: CompiledSort = Object.freeze({ parameters: {}, split: (args: Readonly<Record<string, unknown>>) => ({ args: { ...args }, sent: [] }) })

/** Compiles a mount's sort, or throws a MountError naming the first field that cannot be served. */
export function compileSort (options: SortOptions | undefined, context: SortContext): CompiledSort {
  if (options === undefined) return NO_SORT
  const refuse = (why: string, at = '/sort'): never => { throw new MountError(`${context.name}: ${why}.`, { at }) }
  const { source } = context
  if (source === undefined) return refuse('its source is read a window at a time (an upstream API\'s), in the upstream\'s own order, and cannot sort; declare no sort')
  if (options.fields.length === 0) refuse('its sort names no field; name at least one, or declare no sort', '/sort/fields')
  if (context.taken.includes(SORT_ARGUMENT)) refuse(`its sort takes the argument ${SORT_ARGUMENT}, which is already one of its arguments or filters'; name that one otherwise`)
  options.fields.forEach((field, index) => {
    const at = `/sort/fields/${index}`
    if (options.fields.indexOf(field) < index) refuse(`its sort names "${field}" twice; name each field once`, at)
    checkField(field, { ...context, source }, (why) => refuse(why, at))
  })
  const values = options.fields.flatMap((field) => [field, `-${field}`])
  const usual = options.default
  if (usual !== undefined && !values.includes(usual)) refuse(`its default sort "${usual}" is none of ${values.join(', ')}`, '/sort/default')
  const listed = options.fields.join(', ')
  const described = `The order of the list: a field's name for ascending, with a leading - for descending, by one of ${listed}. Ties keep the list's own order (by its key); a missing value comes before every other ascending, after every other descending.`
  return {
    parameters: { [SORT_ARGUMENT]: Type.Optional(Type.Unsafe({ type: 'string', enum: values, description: `${described} Default: ${usual ?? 'the list\'s own order'}.` })) },
    split: (checked) => {
      const { [SORT_ARGUMENT]: sent, ...args } = checked
      const chosen = (sent ?? usual) as string | undefined
      return { args, ...(chosen === undefined ? {} : { sort: sortOf(chosen) }), sent: sent === undefined ? [] : [SORT_ARGUMENT] }
    }
  }
}

/** `-field` descending, `field` ascending. */
function sortOf (value: string): Sort {
  return value.startsWith('-') ? { field: value.slice(1), direction: 'desc' } : { field: value, direction: 'asc' }
}

function checkField (field: string, context: SortContext & { readonly source: Sortable }, refuse: (why: string) => never): void {
  const on = `the sort on "${field}"`
  if (!Object.hasOwn(context.schema.properties, field)) refuse(`${on} names no top-level field of the record`)
  // The order a call is served in would tell what an agent is not shown: its rank against every other record.
  if (context.projection.fields.get(field)?.action === 'hide') refuse(`${on} is on a field hidden from agents: the order would tell its values; sort on a field agents are shown`)
  const shape = shapeOf(context.schema.properties[field]) ?? refuse(`${on} is on a field that holds no single scalar (a string, a number, an integer or a boolean)`)
  if (shape.format === 'decimal') refuse(`${on} is on decimal text, which orders as text (9.99 after 10.00), not as its numbers`)
  if (context.source.canSort?.(field) !== true) refuse(`${on} cannot be applied by the mount's source (it does not order by "${field}")`)
}
