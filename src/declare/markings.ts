// What a field is for, said once on the field: the agent projection reads it, the plain schema
// never shows it. One marking per field; unmarked fields are content.
import type { TSchema } from 'typebox'
import { withFieldInfo } from './field-info.js'
import type { Formatter } from './formatter.js'

export type Marking =
  | { readonly kind: 'content' }
  | { readonly kind: 'handle', readonly description?: string }
  | { readonly kind: 'label', readonly description?: string }
  | { readonly kind: 'hidden' }
  | { readonly kind: 'formatted', readonly formatter: Formatter, readonly description?: string }
  | { readonly kind: 'timestamp', readonly format?: string, readonly description?: string }

/** Marking values, for a mount's overrides and for `mark`. */
export const Marking = {
  content: (): Marking => ({ kind: 'content' }),
  /** An identifier to pass to other tools: kept as stored, never formatted, never replaced by a display. */
  handle: (description?: string): Marking => ({ kind: 'handle', description }),
  /** The one field that names the record. */
  label: (description?: string): Marking => ({ kind: 'label', description }),
  /** Plumbing: never shown to an agent (presentation, not secrecy). */
  hidden: (): Marking => ({ kind: 'hidden' }),
  formatted: (formatter: Formatter, description?: string): Marking => ({ kind: 'formatted', formatter, description }),
  /** A date-time rendered in the gateway's zone with luxon tokens (default: day first, with offset). */
  timestamp: (format?: string, description?: string): Marking => ({ kind: 'timestamp', format, description })
} as const

/** A copy of `schema` carrying `marking`. */
export function mark<T extends TSchema> (schema: T, marking: Marking): T {
  return withFieldInfo(schema, { marking })
}

export function handle<T extends TSchema> (schema: T, description?: string): T {
  return mark(schema, Marking.handle(description))
}

export function label<T extends TSchema> (schema: T, description?: string): T {
  return mark(schema, Marking.label(description))
}

export function hidden<T extends TSchema> (schema: T): T {
  return mark(schema, Marking.hidden())
}

export function formatted<T extends TSchema> (schema: T, formatter: Formatter, description?: string): T {
  return mark(schema, Marking.formatted(formatter, description))
}

export function timestamp<T extends TSchema> (schema: T, options: { format?: string, description?: string } = {}): T {
  return mark(schema, Marking.timestamp(options.format, options.description))
}
