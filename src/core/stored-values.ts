// A row is served as it is stored, or not at all. A NULL in a field whose declaration does not admit
// null would otherwise be written by the serializer as a made-up value (`""`, `0`, `false`), to
// both audiences, with no word: instead the request is refused (AG_STORED_VALUE_INVALID, a 502: the
// gateway's source answered something its declaration says cannot be), naming the field.
import type { TObject } from 'typebox'
import { literal, writtenFunction } from '../written-code.js'
import { problem } from './errors.js'

/**
 * `present`, first checking that no top-level field the declaration's schema does not admit null
 * for holds null. Only the fields that need it are looked at, with one comparison each.
 */
export function refusingNulls<Row, Presented> (record: { readonly name: string, readonly schema: TObject }, present: (row: Row) => Presented): (row: Row) => Presented {
  const fields = Object.entries(record.schema.properties).filter(([, schema]) => refusesNull(schema)).map(([name]) => name)
  if (fields.length === 0) return present
  const firstNull = nullFinder(fields)
  return (row) => {
    const field = firstNull(row)
    if (field !== undefined) throw storedNull(record.name, field)
    return present(row)
  }
}

/**
 * The first of `fields` a row holds null in, or undefined: `row["<field>"] === null ? "<field>" :
 * ...`, written once for the declaration, each name by `literal` (written-code.ts). A loop reading
 * `row[field]` is one read for every field, which V8 cannot specialise (megamorphic: about 150
 * instructions a field, 30,000 of a 50-entry page's 2 million).
 */
function nullFinder (fields: readonly string[]): (row: unknown) => string | undefined {
  const tests = fields.map((field) => {
    const name = literal(field)
    return `row[${name}] === null ? ${name} : `
  })
  return writtenFunction<(row: unknown) => string | undefined>(['row'], `return ${tests.join('')}undefined`)
}

/** The refusal of a row whose `field` holds what its declaration does not admit, saying `why`. */
export function storedValueInvalid (record: string, field: string, why: string): Error {
  return problem('AG_STORED_VALUE_INVALID', `Record ${record}'s field "${field}" ${why}; the request is refused rather than served a value that is not the one stored.`)
}

function storedNull (record: string, field: string): Error {
  return storedValueInvalid(record, field, 'holds NULL, which its declaration does not admit (it is not nullable)')
}

/** True when the schema states its type, and null is not among it (a schema stating none admits anything). */
function refusesNull (schema: unknown): boolean {
  const { type } = schema as { type?: unknown }
  if (typeof type === 'string') return type !== 'null'
  return Array.isArray(type) && !type.includes('null')
}
