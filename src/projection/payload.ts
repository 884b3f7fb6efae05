// The payload side: shapes a presented value (a record or a list of them) for an agent.
import { displayOf } from '../declare/choices.js'
import { literal, sameStrings, writtenFunction } from '../written-code.js'
import type { FieldAction, Projection } from './build.js'

type Row = Readonly<Record<string, unknown>>

/**
 * Projects a presented record, or each record of a list. Returns `value` itself for an empty
 * projection; otherwise builds new objects and never touches the input, at any depth.
 */
export function projectPayload (value: unknown, projection: Projection): unknown {
  if (projection.isEmpty) return value
  return Array.isArray(value) ? projectRows(value, projection) : projectRecord(value, projection)
}

/**
 * Each record of a list projected as projectRecord projects it, by a projector compiled for its
 * keys (projectorOf): a list's records are of one shape, or a few, and the Map lookup and the
 * reads and writes of a key V8 cannot specialise (one site for every key of every shape) cost
 * about four fifths of a record's projection.
 */
function projectRows (rows: readonly unknown[], projection: Projection): unknown[] {
  const out = new Array<unknown>(rows.length)
  let keys: readonly string[] = []
  let project: Projector | undefined
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]
    if (!isRecord(row)) {
      out[i] = row
      continue
    }
    const own = Object.keys(row)
    if (project === undefined || !sameStrings(own, keys)) {
      keys = own
      project = projectorOf(projection, own)
    }
    out[i] = project(row)
  }
  return out
}

function projectRecord (value: unknown, projection: Projection): unknown {
  if (!isRecord(value)) return value
  const row = value
  const out: Record<string, unknown> = {}
  // Own keys only, as JSON.stringify serves them: an inherited key is no part of the row.
  for (const key of Object.keys(row)) {
    const field = projection.fields.get(key)
    if (field === undefined) out[key] = row[key]
    else if (field.action !== 'hide') out[key] = projectField(row[key], field)
  }
  return out
}

function projectField (value: unknown, field: Exclude<FieldAction, { action: 'hide' }>): unknown {
  if (value === null || value === undefined) {
    // A null is never formatted nor walked; it is displayed only when the choices give it a display.
    return field.action === 'display' && !field.each ? displayOf(value, field.displays) : value
  }
  switch (field.action) {
    case 'keep':
      return value
    case 'format':
      return field.formatter.render(value)
    case 'nest':
      return eachOf(value, field.each, (item) => projectRecord(item, field.projection))
    case 'display':
      return eachOf(value, field.each, (item) => displayOf(item, field.displays))
  }
}

/** `apply` to the value, or to each member of a list field; a list field holding no list passes. */
function eachOf (value: unknown, each: boolean, apply: (item: unknown) => unknown): unknown {
  if (!each) return apply(value)
  return Array.isArray(value) ? value.map(apply) : value
}

function isRecord (value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Projects a record whose own keys are those the projector was compiled for. */
type Projector = (row: Row) => Record<string, unknown>

/** Each projection's projectors, by the keys they were compiled for (joined), a few shapes at most, and the last one asked for. */
const compiled = new WeakMap<Projection, Shapes>()
const SHAPES_KEPT = 16

interface Shapes {
  readonly byKeys: Map<string, Projector>
  /** Nearly every page's rows are of the shape the last page's were: found without joining their keys. */
  last?: { readonly keys: readonly string[], readonly project: Projector }
}

/** The projector of `projection` for records of these own keys, compiled the first time they are met. */
function projectorOf (projection: Projection, keys: readonly string[]): Projector {
  let shapes = compiled.get(projection)
  if (shapes === undefined) compiled.set(projection, shapes = { byKeys: new Map() })
  const { last, byKeys } = shapes
  if (last !== undefined && sameStrings(last.keys, keys)) return last.project
  const name = keys.join('\u0000')
  let project = byKeys.get(name)
  if (project === undefined) {
    if (byKeys.size >= SHAPES_KEPT) byKeys.clear()
    project = compileProjector(projection, keys)
    byKeys.set(name, project)
  }
  shapes.last = { keys, project }
  return project
}

/**
 * projectRecord written out for records of `keys`: `{ "<key>": row["<key>"], ... }`, a key without
 * a field passed through, a hidden one left out, each other's value projected by its field, in the
 * order of the keys, each written by `literal` (written-code.ts); an own `__proto__` sets the new
 * object's prototype in a literal as projectRecord's assignment does.
 */
function compileProjector (projection: Projection, keys: readonly string[]): Projector {
  const fields: Array<Exclude<FieldAction, { action: 'hide' }>> = []
  const entries: string[] = []
  for (const key of keys) {
    const field = projection.fields.get(key)
    const name = literal(key)
    if (field === undefined) {
      entries.push(`${name}: row[${name}]`)
    } else if (field.action !== 'hide') {
      entries.push(`${name}: project(row[${name}], fields[${fields.length}])`)
      fields.push(field)
    }
  }
  const write = writtenFunction<(project: typeof projectField, given: typeof fields) => Projector>(['project', 'fields'], `return (row) => ({ ${entries.join(', ')} })`)
  return write(projectField, fields)
}
