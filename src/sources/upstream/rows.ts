// An upstream's item as the declared record: each declared field read from its path in the item
// (the same name unless mapped), nothing else kept, then checked against the record's schema. A row
// the gateway's own document would contradict is never served: it fails as the upstream's fault,
// naming the field; the log gets where it was read, never its value (the field may be hidden).
import { Ajv, type ErrorObject, type FormatDefinition, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import type { TObject } from 'typebox'
import { problem } from '../../core/errors.js'
import { CUSTOM_FORMATS } from '../../formats.js'
import type { SourceLog } from '../source.js'
import { isDateTime } from './date-time.js'
import { upstreamCalled } from './faults.js'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** Where each declared field is in the upstream's item: a dotted path (`pricing.amount_cents`). */
export type FieldPaths = Readonly<Record<string, string>>

/** Where the items read came from: the URL asked of the upstream, and where what is wrong with one is told. */
export interface ItemsFrom {
  readonly url: URL
  /** The log of the request the items are read for, which names it. */
  readonly log: SourceLog | undefined
}

/** Turns one upstream item into a checked row of the record, or throws the 502 naming the field. */
export type RowReader = (item: unknown) => Record<string, unknown>

/** The reader of the items of one upstream answer (a page, a record). */
export type RowReaders = (from: ItemsFrom) => RowReader

/** Compiles the check of a row: the app's (validators.ts). */
export type CompileRows = (schema: TObject) => ValidateFunction

/**
 * The readers for `schema` (the record as served; its computed `affordances` are not read from the
 * upstream), compiled once by `compile`. `name` is what the problem calls the upstream; the log is
 * told its origin, the path asked, the field and where it is in the item, never the value.
 */
export function rowReader (schema: TObject, fields: FieldPaths, upstream: { readonly origin: string, readonly name?: string | undefined }, compile: CompileRows): RowReaders {
  const { origin } = upstream
  const called = upstreamCalled(upstream.name)
  const { affordances: _computed, ...declared } = schema.properties
  const unknown = Object.keys(fields).filter((name) => !Object.hasOwn(declared, name))
  if (unknown.length > 0) throw new RangeError(`fields maps ${unknown.join(', ')}, which the record does not declare.`)
  // A field named like something every object inherits (`constructor`) is read by its own name.
  const mapped = new Map(Object.keys(declared).map((name) => [name, Object.hasOwn(fields, name) ? fields[name] : name]))
  const paths = [...mapped].map(([name, path]) => [name, path.split('.')] as const)
  const validate = compile({ ...schema, properties: declared, required: (schema.required ?? []).filter((name: string) => name !== 'affordances') } as TObject)
  return ({ url, log }) => (item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      log?.warn({ origin, path: pathOf(url), type: Array.isArray(item) ? 'array' : typeof item }, 'upstream row is not an object')
      throw problem('AG_UPSTREAM_FAILED', `${called} answered a row that is not an object.`)
    }
    const row: Record<string, unknown> = {}
    for (const [name, path] of paths) {
      const value = at(item, path)
      if (value !== undefined) row[name] = value
    }
    if (validate(row)) return row
    const [error] = validate.errors as ErrorObject[]
    const field = fieldOf(error)
    log?.warn({ origin, path: pathOf(url), field, itemPath: itemPathOf(field, mapped), keyword: error.keyword, message: error.message }, 'upstream row does not match the declared record')
    throw problem('AG_UPSTREAM_FAILED', `${called} answered a row that does not match the declared record: ${field} ${String(error.message)}.`)
  }
}

/** An Ajv that checks rows as they are: nothing coerced or added, the first error. */
export function rowsAjv (): Ajv {
  // Not checked against the meta-schema again: the record is, by the route serializing it, and
  // Ajv's own check would compile the meta-schema again for every app.
  const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false, validateSchema: false })
  addFormats(ajv)
  // Every upstream timestamp is checked here: the same answers as ajv-formats' own check, without its
  // allocations (date-time.ts); its comparison stays, for formatMinimum and formatMaximum.
  ajv.addFormat('date-time', { ...fullFormats['date-time'] as FormatDefinition<string>, validate: isDateTime })
  for (const [name, format] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, format)
  return ajv
}

/** What the client logs as a call's path: the path and query asked of the upstream. */
function pathOf (url: URL): string {
  return url.pathname + url.search
}

/** Where a field of the record is in the upstream's item: its top-level field's path, then the rest. */
function itemPathOf (field: string, mapped: ReadonlyMap<string, string>): string {
  const [top, ...rest] = field.split('.')
  return [mapped.get(top) ?? top, ...rest].join('.')
}

/** The value at `path` in `item`, or undefined where the path leads nowhere. */
function at (item: unknown, path: readonly string[]): unknown {
  let value = item
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/** The record's field an error is about: where it is, then the property it misses or must not have. */
function fieldOf (error: ErrorObject): string {
  const { missingProperty, additionalProperty } = error.params as { missingProperty?: string, additionalProperty?: string }
  const path = error.instancePath.slice(1).replaceAll('/', '.')
  return [path, missingProperty ?? additionalProperty].filter((part) => part !== undefined && part !== '').join('.')
}
