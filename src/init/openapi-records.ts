// A record drafted from an item schema, and the markings guessed on its fields: the handle (`id`, or
// the field a get-by-id's path parameter names), one label, hidden for what looks secret or personal,
// a timestamp for each date-time. Each guess is a note; so is a label that could not be guessed.
import type { FieldDeclaration, RecordDeclarationEntry } from '../config-file/schema.js'
import { LABEL_NAMES, looksHidden } from './guesses.js'
import { annotations, fieldsOf, segment, type SchemaReading } from './openapi-fields.js'
import type { Json } from './openapi-refs.js'

type Fields = Record<string, FieldDeclaration>

/** A record as drafted: its fields still open to a later guess (the handle a get-by-id names). */
export type DraftedRecord = RecordDeclarationEntry & { readonly fields: Fields }

/** The record of `schema` at `at` (its fields marked), or undefined (with a note) when it has no field the gateway can declare. */
export function recordOf (schema: Json, name: string | undefined, at: string, reading: SchemaReading): DraftedRecord | undefined {
  const fields = fieldsOf(schema, `${at}/fields`, reading, name === undefined ? [] : [name])
  if (Object.keys(fields).length === 0) return undefined
  const notes = reading.notes
  if (Object.hasOwn(fields, 'id')) markHandle(fields, 'id', `${at}/fields`, reading)
  for (const [field, declared] of Object.entries(fields)) fields[field] = marked(declared, `${at}/fields/${segment(field)}`, field, reading)
  const label = LABEL_NAMES.find((candidate) => Object.hasOwn(fields, candidate) && fields[candidate].type === 'string' && !isMarked(fields[candidate]))
  if (label === undefined) {
    notes.push({ pointer: at, note: `no label guessed: no unmarked string field is called ${LABEL_NAMES.slice(0, 4).join(', ')} or alike; give the field that names one "label: true".` })
  } else {
    fields[label] = { ...fields[label], label: true }
    notes.push({ pointer: `${at}/fields/${segment(label)}/label`, note: `label guessed: "${label}" names the record to agents.` })
  }
  return { ...annotations(schema), fields }
}

/**
 * Marks `field` of `fields` (at pointer `at`, the fields') as the handle, when no field is one yet
 * and it is an unmarked scalar: what a get-by-id names its record by.
 */
export function markHandle (fields: Fields, field: string, at: string, reading: SchemaReading): void {
  const declared = fields[field]
  if (Object.values(fields).some((other) => other.handle !== undefined) || isMarked(declared) || !['string', 'integer', 'number'].includes(String(declared.type))) return
  fields[field] = { ...declared, handle: true }
  reading.notes.push({ pointer: `${at}/${segment(field)}/handle`, note: `handle guessed: "${field}" identifies the record; agents pass it on to other tools as it is.` })
}

/** A field with the marking its name or type suggests (hidden, timestamp), its nested fields too. */
function marked (field: FieldDeclaration, at: string, name: string, reading: SchemaReading): FieldDeclaration {
  const { notes } = reading
  const nested = (fields: Fields, where: string): Fields => Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, marked(value, `${where}/${segment(key)}`, key, reading)]))
  let inner = field
  if (field.fields !== undefined) inner = { ...field, fields: nested(field.fields, `${at}/fields`) }
  if (field.items?.fields !== undefined) inner = { ...field, items: { ...field.items, fields: nested(field.items.fields, `${at}/items/fields`) } }
  if (isMarked(inner)) return inner
  if (looksHidden(name)) {
    notes.push({ pointer: `${at}/hidden`, note: `hidden guessed: "${name}" looks secret or personal, so agents are not shown it (plain clients are: presentation, not secrecy).` })
    return { ...inner, hidden: true }
  }
  if (inner.type === 'date-time') {
    notes.push({ pointer: `${at}/timestamp`, note: 'timestamp guessed: a date-time, shown to agents in the gateway\'s TIME_ZONE.' })
    return { ...inner, timestamp: {} }
  }
  return inner
}

function isMarked (field: FieldDeclaration): boolean {
  return field.handle !== undefined || field.label !== undefined || field.hidden !== undefined || field.timestamp !== undefined || field.formatted !== undefined
}
