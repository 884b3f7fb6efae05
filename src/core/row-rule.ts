// A mount's row rule: which rows each caller may read, bound to its identity rather than to its
// arguments. `{ tenant_id: { claim: 'org_id' } }` serves a caller only the rows whose `tenant_id` is
// its own `org_id` claim (a token's verified claim, or one configured with a key). The rule's
// conditions join the filters' in the source, before counting and slicing, so totals, pages, the
// plain stream and every answer kept or validated under their name are the caller's own. No caller
// can set or widen it: it is no argument, and a caller whose identity lacks the claim is refused.
import type { Permission, Principal } from '../permissions.js'
import { needsPrincipal } from '../permissions.js'
import type { Condition, Filterable } from '../sources/index.js'
import { problem } from './errors.js'
import { shapeOf, type Shape } from './filters.js'
import { MountError } from './mount.js'

/** By top-level field, the claim of the caller's identity its value must equal. */
export type RowRule = Readonly<Record<string, { readonly claim: string }>>

/** A mount's row rule, ready to serve. */
export interface CompiledRowRule {
  /** What the published description adds: whose rows are served (absent without a rule). */
  readonly sentence?: string
  /** The conditions the caller's identity sets, or the 403 of an identity lacking a claim; none without a rule. */
  readonly where: (principal: Principal | undefined) => readonly Condition[]
}

export interface RowRuleContext {
  /** Names the mount in refusals: `Route 'listInvoices'`. */
  readonly name: string
  /** The record's plain schema: what each field holds as stored. */
  readonly schema: { readonly properties: Readonly<Record<string, unknown>> }
  readonly permissions: readonly Permission[]
  /** A list's source, which applies the conditions itself; absent for one record, checked once read. */
  readonly source?: Filterable
  /** The fields the mount's filters take arguments on: one bound to a claim is not also the caller's to choose. */
  readonly filtered?: readonly string[]
}

/** No rule: every row the arguments select. */
export const NO_ROW_RULE: CompiledRowRule = Object.freeze({ where: () => NONE })

/** What every call of a mount without a rule is given: one empty list, not a new one each time. */
const NONE: readonly Condition[] = Object.freeze([])

/** Compiles a mount's row rule, or throws a MountError naming what cannot be served. */
export function compileRowRule (rule: RowRule | undefined, context: RowRuleContext): CompiledRowRule {
  if (rule === undefined) return NO_ROW_RULE
  const bound = Object.entries(rule).map(([field, { claim }]) => ({ field, claim, shape: checked(field, claim, context) }))
  if (bound.length === 0) throw new MountError(`${context.name}: its row rule binds no field; bind at least one to a claim, or declare no rule.`, { at: '/rowRule' })
  if (!needsPrincipal(context.permissions)) {
    throw new MountError(`${context.name}: its row rule reads the caller's identity, and its permissions let anyone call it; ask for a signed-in caller or a scope.`, { at: '/rowRule' })
  }
  const sentence = `Only the caller's own rows are served: those whose ${bound.map(({ field, claim }) => `${field} is its "${claim}" claim`).join(' and whose ')}.`
  return {
    sentence,
    where: (principal) => bound.map(({ field, claim, shape }) => ({ field, op: 'equals', value: claimed(principal, claim, shape, field) }))
  }
}

/** The JSON types a claim may hold for a field of each scalar type. */
const CLAIM_TYPES = { string: 'text', integer: 'a whole number', number: 'a number', boolean: 'true or false' } as const

function checked (field: string, claim: string, context: RowRuleContext): Shape {
  const at = `/rowRule/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`
  const refuse = (why: string): never => { throw new MountError(`${context.name}: its row rule on "${field}" ${why}.`, { at }) }
  if (typeof claim !== 'string' || claim === '') refuse('names no claim; write { claim: "<name>" }')
  if (!Object.hasOwn(context.schema.properties, field)) refuse('names no top-level field of the record')
  const shape = shapeOf(context.schema.properties[field]) ?? refuse('is on a field that holds no single scalar (a string, a number, an integer or a boolean)')
  if (context.source !== undefined && context.source.canFilter?.(field, 'equals') !== true) refuse(`cannot be applied by the mount's source (it does not filter "${field}" by equals)`)
  if (context.filtered?.includes(field) === true) refuse('is also filtered by an argument: the field is the caller\'s claim, not the caller\'s choice; drop the filter')
  return shape
}

/** The value of `claim` in the caller's identity, or the 403 saying why there is none to read rows by. */
function claimed (principal: Principal | undefined, claim: string, shape: Shape, field: string): string | number | boolean {
  const who = principal?.issuer === undefined ? 'this key' : 'this token'
  const refuse = (why: string): never => {
    throw problem('AG_CLAIM_REQUIRED', `This route serves each caller only its own rows, by the "${claim}" claim of its identity, and ${why}.`)
  }
  const claims = principal?.claims
  if (claims === undefined || !Object.hasOwn(claims, claim)) {
    refuse(principal?.issuer === undefined ? `${who} carries no such claim (a key's claims are configured with it in API_KEYS)` : `${who} carries no such claim`)
  }
  const value = (claims as Readonly<Record<string, unknown>>)[claim]
  if (!holds(value, shape)) refuse(`${who}'s "${claim}" claim is not ${CLAIM_TYPES[shape.type]}, as ${field} holds`)
  return value as string | number | boolean
}

function holds (value: unknown, shape: Shape): boolean {
  if (shape.type === 'integer') return Number.isSafeInteger(value)
  if (shape.type === 'number') return typeof value === 'number' && Number.isFinite(value)
  return shape.type === 'string' ? typeof value === 'string' : typeof value === 'boolean'
}
