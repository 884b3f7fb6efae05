// A field whose values come from a fixed list, each with the display a reader is told.
import Type, { type TUnsafe } from 'typebox'
import { withFieldInfo } from './field-info.js'
import { jsonTypesOf } from '../json-types.js'

export type ChoiceValue = string | number | boolean | null

/** `value -> display` pairs; an object is shorthand for string values. */
export type ChoicePairs<V extends ChoiceValue> = ReadonlyArray<readonly [V, string]> | Readonly<Record<V & string, string>>

export interface ChoiceOptions {
  /** Adds null to the admitted values (unless the pairs already list it). */
  nullable?: boolean
  description?: string
  title?: string
}

// One signature per form of the pairs. A list is inferred whole, so values of different types
// (1, "1", true, null) are all kept in the field's static type.
/**
 * The plain schema of a choice field: an `enum` when every display equals its value, otherwise a
 * `oneOf` of `{const, title}`; the `type` is always stated, nullability inside it. The displays
 * that differ from their values ride along out of band, keyed by the raw value.
 */
export function choices<const P extends ReadonlyArray<readonly [ChoiceValue, string]>, N extends boolean = false> (
  pairs: P,
  options?: ChoiceOptions & { nullable?: N }
): TUnsafe<N extends true ? P[number][0] | null : P[number][0]>
export function choices<const V extends string, N extends boolean = false> (
  pairs: Readonly<Record<V, string>>,
  options?: ChoiceOptions & { nullable?: N }
): TUnsafe<N extends true ? V | null : V>
export function choices (pairs: ChoicePairs<ChoiceValue>, options: ChoiceOptions = {}): TUnsafe<ChoiceValue> {
  const entries: Array<readonly [ChoiceValue, string]> = Array.isArray(pairs) ? [...pairs] : Object.entries(pairs)
  if (entries.length === 0) throw new TypeError('A choice field needs at least one value.')
  if (options.nullable === true && !entries.some(([value]) => value === null)) entries.push([null, 'null'])

  const displays = new Map<unknown, string>()
  for (const [value, display] of entries) {
    if (display !== String(value)) displays.set(value, display)
  }
  const values = entries.map(([value]) => value)
  const listed = displays.size === 0
    ? { enum: values }
    : { oneOf: entries.map(([value, display]) => value === null && !displays.has(null) ? { const: null } : { const: value, title: display }) }
  const annotations = pick(options, ['title', 'description'])
  const type = jsonTypesOf(values)
  return withFieldInfo(Type.Unsafe<ChoiceValue>({ type, ...listed, ...annotations }), { displays })
}

/** The display a reader is told for `value`, or `value` itself when it has none (an unknown value passes). */
export function displayOf (value: unknown, displays: ReadonlyMap<unknown, string>): unknown {
  const display = displays.get(value)
  return display === undefined ? value : display
}

function pick (options: ChoiceOptions, keys: ReadonlyArray<'title' | 'description'>): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const key of keys) if (options[key] !== undefined) picked[key] = options[key]
  return picked
}
