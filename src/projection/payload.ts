// The payload side: shapes a presented value (a record or a list of them) for an agent.
import { displayOf } from '../declare/choices.js'
import type { FieldAction, Projection } from './build.js'

type Row = Readonly<Record<string, unknown>>

/**
 * Projects a presented record, or each record of a list. Returns `value` itself for an empty
 * projection; otherwise builds new objects and never touches the input, at any depth.
 */
export function projectPayload (value: unknown, projection: Projection): unknown {
  if (projection.isEmpty) return value
  return Array.isArray(value) ? value.map((row) => projectRecord(row, projection)) : projectRecord(value, projection)
}

function projectRecord (value: unknown, projection: Projection): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const row = value as Row
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
