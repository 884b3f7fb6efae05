// What an agent body may hold: the fields a route's declaration hides (read from its projection,
// at any depth), the keys its published schema declares, and the keys of the plain row it was
// projected from. Each check returns what it found wrong, so a property can report it whole.
import type { RouteOptions } from 'fastify'
import type { TSchema } from 'typebox'
import type { Marking } from '../../src/declare/index.js'
import { buildProjection, type Projection } from '../../src/projection/index.js'

/** The fields a mount hides from agents, as paths into its record (`lines[].internal_cost`). */
export interface HiddenFields {
  readonly paths: readonly string[]
  /** The last names of those paths that no shown field shares: such a key is a leak wherever it occurs. */
  readonly names: ReadonlySet<string>
}

/**
 * The hidden fields of a registered route: its plain record (which carries the declaration's
 * markings) projected as its mount projects it, `overrides` included. A route without a JSON
 * record (a text) hides nothing.
 */
export function hiddenFieldsOf (route: RouteOptions, plainMediaType: string, overrides?: Readonly<Record<string, Marking>>): HiddenFields {
  const body = (route.schema?.response as Record<string, { content?: Record<string, { schema: JsonObject }> }> | undefined)?.['200']?.content?.[plainMediaType]?.schema
  const record = body?.type === 'array' ? body.items as JsonObject : body
  if (record?.type !== 'object') return { paths: [], names: new Set() }
  const projection = buildProjection(record as unknown as TSchema, { name: `Route '${route.url}'`, overrides })
  const { hidden, shown } = fieldsOf(projection, record, '')
  const shownNames = new Set(shown.map(lastName))
  return { paths: hidden, names: new Set(hidden.map(lastName).filter((name) => !shownNames.has(name))) }
}

/** Every key of `body`, at any depth, that is one of `names`, by where it occurs. */
export function hiddenKeysIn (body: unknown, names: ReadonlySet<string>): string[] {
  return walk(body, '$').filter(({ key }) => names.has(key)).map(({ at }) => at)
}

/**
 * Every key of `value` that `schema` does not declare where it occurs: not a property of the
 * schema or of one of its allOf/anyOf/oneOf branches, nor admitted by an additionalProperties
 * schema. An open object schema admits any key, but declares none: a key it does not name is a
 * leak the body's validation alone would let through.
 */
export function undeclaredKeys (schema: unknown, value: unknown, at = '$'): string[] {
  if (Array.isArray(value)) {
    const items = branchesOf(schema).map((branch) => branch.items ?? {})
    return value.flatMap((member, i) => bestOf(items, member, `${at}[${i}]`))
  }
  if (!isObject(value)) return []
  const branches = branchesOf(schema)
  return Object.entries(value).flatMap(([key, member]) => {
    const declared = branches.flatMap((branch) => declaredAt(branch, key))
    return declared.length === 0 ? [`${at}.${key}`] : bestOf(declared, member, `${at}.${key}`)
  })
}

/**
 * How an agent record differs from the plain row it was projected from: a key the plain row lacks
 * (at any depth), or a hidden path the plain row holds and the agent record holds too.
 * `exercised` counts the hidden values the plain row held, to show the check met real ones.
 */
export function compareWithPlain (agent: unknown, plain: unknown, hidden: readonly string[], exercised: { count: number }): string[] {
  const found = extraKeys(agent, plain, '$')
  for (const path of hidden) {
    const inPlain = valuesAt(plain, path.split('.'))
    exercised.count += inPlain.length
    if (inPlain.length > 0 && valuesAt(agent, path.split('.')).length > 0) found.push(`hidden ${path} served`)
  }
  return found
}

type JsonObject = Record<string, unknown> & { type?: unknown, items?: unknown, properties?: Record<string, unknown> }

function fieldsOf (projection: Projection, record: JsonObject, prefix: string): { hidden: string[], shown: string[] } {
  const hidden: string[] = []
  const shown: string[] = []
  for (const key of Object.keys(record.properties ?? {})) {
    const action = projection.fields.get(key)
    if (action?.action === 'hide') {
      hidden.push(prefix + key)
      continue
    }
    shown.push(prefix + key)
    if (action?.action !== 'nest') continue
    const field = (record.properties ?? {})[key] as JsonObject
    const nested = fieldsOf(action.projection, (action.each ? field.items : field) as JsonObject, `${prefix}${key}${action.each ? '[]' : ''}.`)
    hidden.push(...nested.hidden)
    shown.push(...nested.shown)
  }
  return { hidden, shown }
}

function lastName (path: string): string {
  return path.split('.').at(-1) as string
}

function walk (value: unknown, at: string): Array<{ key: string, at: string }> {
  if (Array.isArray(value)) return value.flatMap((member, i) => walk(member, `${at}[${i}]`))
  if (!isObject(value)) return []
  return Object.entries(value).flatMap(([key, member]) => [{ key, at: `${at}.${key}` }, ...walk(member, `${at}.${key}`)])
}

/** The schema and, recursively, the members of its allOf/anyOf/oneOf. */
function branchesOf (schema: unknown): JsonObject[] {
  if (!isObject(schema)) return []
  const members = ['allOf', 'anyOf', 'oneOf'].flatMap((keyword) => Array.isArray(schema[keyword]) ? schema[keyword] as unknown[] : [])
  return [schema, ...members.flatMap(branchesOf)]
}

function declaredAt (schema: JsonObject, key: string): unknown[] {
  if (isObject(schema.properties) && Object.hasOwn(schema.properties, key)) return [schema.properties[key]]
  return isObject(schema.additionalProperties) ? [schema.additionalProperties] : []
}

/** The fewest undeclared keys `value` has against any of `schemas` (none when one declares it all). */
function bestOf (schemas: readonly unknown[], value: unknown, at: string): string[] {
  const found = schemas.map((schema) => undeclaredKeys(schema, value, at))
  return found.reduce((best, next) => next.length < best.length ? next : best, found[0] ?? [`${at} (no schema)`])
}

function extraKeys (agent: unknown, plain: unknown, at: string): string[] {
  if (Array.isArray(agent)) {
    return Array.isArray(plain) ? agent.flatMap((member, i) => extraKeys(member, plain[i], `${at}[${i}]`)) : []
  }
  if (!isObject(agent) || !isObject(plain)) return []
  return Object.entries(agent).flatMap(([key, member]) => Object.hasOwn(plain, key)
    ? extraKeys(member, plain[key], `${at}.${key}`)
    : [`${at}.${key} (not in the plain row)`])
}

/** The values at `path` (`[]` after a name: each member of that list), wherever they are present. */
function valuesAt (value: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return [value]
  const [head, ...rest] = path
  const each = head.endsWith('[]')
  const key = each ? head.slice(0, -2) : head
  if (!isObject(value) || !Object.hasOwn(value, key)) return []
  const member = value[key]
  if (!each) return valuesAt(member, rest)
  return Array.isArray(member) ? member.flatMap((item) => valuesAt(item, rest)) : []
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
