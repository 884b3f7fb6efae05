// Closed arguments, checked once for every transport: every parameter a mount did not declare is
// refused, never dropped; an integer (or a number) is accepted only in its canonical decimal form; a parameter
// may be given once; a plain client may not send an agent's paging parameters. Every offending
// argument is named in one 400, with what is wrong with each.
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { TObject, TProperties } from 'typebox'
import type { Audience } from '../audience.js'
import { CUSTOM_FORMATS } from '../formats.js'
import { invalidArguments, type ArgumentErrors } from './errors.js'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** The raw arguments of one call, as a transport received them: strings, or lists when repeated. */
export interface RawArguments {
  readonly audience: Audience
  readonly query: Readonly<Record<string, unknown>>
  readonly params: Readonly<Record<string, unknown>>
}

/** The arguments once checked: the paging parameters apart from the declared ones. */
export interface CheckedArguments {
  readonly paging: Readonly<Record<string, number | undefined>>
  readonly args: Readonly<Record<string, unknown>>
  readonly params: Readonly<Record<string, unknown>>
}

export interface ArgumentSchemas {
  /** The declared arguments plus the paging parameters, closed. */
  readonly query: TObject
  readonly params?: TObject
  /** The paging parameters, agents only, and what a plain client sending one is told. */
  readonly paging?: { readonly parameters: TProperties, readonly agentsOnly: string }
}

export const UNKNOWN_ARGUMENT = 'Unknown argument.'
export const MISSING_ARGUMENT = 'Required: pass a value.'
export const REPEATED_ARGUMENT = 'Given more than once: send it once.'
export const NOT_CANONICAL = 'Must be an integer written in plain decimal digits, such as 42: no exponent, decimal point, leading zero, plus sign or other base.'
export const TOO_LARGE = `Must be at most ${Number.MAX_SAFE_INTEGER} in size.`
export const NOT_DECIMAL = 'Must be a number written in plain decimal digits, such as 42 or 4.25: no exponent, leading zero, plus sign or other base.'

/** Compiles the check of one part of the arguments: the app's (validators.ts). */
export type CompileArguments = (schema: TObject) => ValidateFunction

/**
 * Compiled once, at registration, by `compile`: checks one call's arguments, or throws the 400
 * naming each wrong one.
 */
export function argumentChecker (schemas: ArgumentSchemas, compile: CompileArguments): (call: RawArguments) => CheckedArguments {
  const checkQuery = partChecker(schemas.query, compile)
  const checkParams = schemas.params === undefined ? undefined : partChecker(schemas.params, compile)
  const parameters = schemas.paging?.parameters ?? {}
  return function checkArguments (call) {
    const errors = new Map<string, string[]>()
    const query = checkQuery(call.query, errors)
    const params = checkParams === undefined ? {} : checkParams(call.params, errors)
    const { paging, args } = splitQuery(query, parameters)
    if (call.audience === 'plain' && schemas.paging !== undefined) {
      for (const name of Object.keys(call.query)) if (Object.hasOwn(parameters, name)) add(errors, name, schemas.paging.agentsOnly)
    }
    if (errors.size > 0) throw invalidArguments(Object.fromEntries(errors))
    return { paging, args, params }
  }
}

/**
 * An Ajv that checks arguments: digits coerced to numbers (a query's arguments are text), every
 * error reported, nothing added; `coerce` false checks JSON as it is sent (an action's body).
 */
export function argumentsAjv (coerce = true): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce,
    removeAdditional: false,
    useDefaults: false, // an absent paging parameter must stay absent
    allErrors: true,
    strict: false,
    // Checked where the routes publish them (Fastify compiles the same query and path schemas);
    // Ajv's own check would compile the meta-schema again for every app.
    validateSchema: false
  })
  // The formats a filter's arguments state (a day, an instant, a decimal), checked as they are published.
  addFormats(ajv, ['date', 'date-time'])
  for (const [name, pattern] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, pattern)
  return ajv
}

/** What bareRecord makes: its prototype has none, so nothing is inherited, `__proto__` included. */
const Bare = function (this: object) {} as unknown as new () => Record<string, unknown>
Bare.prototype = Object.create(null)

/**
 * A record without Object.prototype: an argument named `__proto__` (or `constructor`) is a property
 * of its own. Made as fast-querystring makes a query's: V8 keeps the properties of an object made by
 * a constructor fast, where `Object.create(null)` starts in dictionary mode, which every later read
 * of it (Ajv's check, a key written as JSON) pays for.
 */
export function bareRecord (): Record<string, unknown> {
  return new Bare()
}

/** Splits a checked query into the paging parameters and the declared arguments. */
export function splitQuery (query: Readonly<Record<string, unknown>>, paging: TProperties): {
  paging: Record<string, number | undefined>
  args: Record<string, unknown>
} {
  const taken: Record<string, number | undefined> = {}
  const args: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(query)) {
    if (Object.hasOwn(paging, name)) taken[name] = value as number
    else args[name] = value
  }
  return { paging: taken, args }
}

/** One Ajv issue, as Ajv (and Fastify's validation errors) report it. */
export interface ValidationIssue {
  keyword?: string
  instancePath?: string
  params?: Record<string, unknown>
  message?: string
}

/**
 * Ajv's issues, keyed by the argument they concern: the property named by the issue (a missing or
 * an unknown one), else the path to the offending value, else the part of the request itself.
 */
export function argumentErrors (issues: readonly ValidationIssue[], context: unknown): ArgumentErrors {
  // A Map, not an object: an argument may be named like something every object inherits
  // (`constructor`, `__proto__`) and must still get a list of its own.
  const errors = new Map<string, string[]>()
  for (const issue of issues) add(errors, argumentName(issue) || String(context ?? 'request'), messageOf(issue))
  return Object.fromEntries(errors)
}

/**
 * Checks one part (query or path parameters): first what Ajv would let through, a repeated
 * parameter and an integer in any form but the canonical one; then the schema, coercing digits to
 * numbers. Returns the checked values; what is wrong goes into `errors`.
 */
function partChecker (schema: TObject, compile: CompileArguments): (raw: Readonly<Record<string, unknown>>, errors: Map<string, string[]>) => Record<string, unknown> {
  const validate = compile(schema)
  const properties: Readonly<Record<string, { type?: unknown }>> = schema.properties
  return (raw, errors) => {
    // Without a prototype: an argument named `__proto__` is one more unknown name, not a prototype to set.
    const data = bareRecord()
    const refused = new Set<string>()
    for (const [name, value] of Object.entries(raw)) {
      const type = Object.hasOwn(properties, name) ? properties[name].type : undefined
      const wrong = Array.isArray(value) && type !== 'array' ? REPEATED_ARGUMENT : type === 'integer' ? integerProblem(value) : type === 'number' ? numberProblem(value) : undefined
      if (wrong === undefined) data[name] = value
      else {
        add(errors, name, wrong)
        refused.add(name)
      }
    }
    if (!validate(data)) {
      for (const [name, messages] of Object.entries(argumentErrors(validate.errors as ValidationIssue[], undefined))) {
        // A refused value was left out: its absence is no second problem.
        if (!refused.has(name)) for (const message of messages) add(errors, name, message)
      }
    }
    return data
  }
}

/**
 * Why `value` is no integer argument: only canonical decimal digits within 2^53 are (or, from a
 * transport that sends JSON, a number that is such an integer).
 */
function integerProblem (value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? undefined : Number.isInteger(value) ? TOO_LARGE : NOT_CANONICAL
  if (typeof value !== 'string' || !/^-?(?:0|[1-9][0-9]*)$/.test(value) || value === '-0') return NOT_CANONICAL
  return Number.isSafeInteger(Number(value)) ? undefined : TOO_LARGE
}

/** Why `value` is no number argument: only plain decimals are (or a finite JSON number), never `Infinity`, `0x10` or `1e3`. */
function numberProblem (value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : NOT_DECIMAL
  return typeof value === 'string' && /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/.test(value) && Number.isFinite(Number(value)) ? undefined : NOT_DECIMAL
}

function add (errors: Map<string, string[]>, name: string, message: string): void {
  const messages = errors.get(name) ?? []
  if (!messages.includes(message)) messages.push(message)
  errors.set(name, messages)
}

function argumentName (issue: ValidationIssue): string {
  const segments = (issue.instancePath ?? '').split('/').slice(1).map(unescapePointer)
  const property = issue.params?.missingProperty ?? issue.params?.additionalProperty
  if (typeof property === 'string') segments.push(property)
  return segments.join('.')
}

function messageOf (issue: ValidationIssue): string {
  if (issue.keyword === 'additionalProperties') return UNKNOWN_ARGUMENT
  if (issue.keyword === 'required') return MISSING_ARGUMENT
  if (issue.message === undefined || issue.message === '') return `Fails the "${String(issue.keyword)}" check.`
  return `${issue.message[0].toUpperCase()}${issue.message.slice(1)}.`
}

function unescapePointer (segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~')
}
