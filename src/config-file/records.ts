// A file's records as the same declarations TypeScript makes: declareRecord over TypeBox fields,
// each carrying its marking, choices with their displays, nested records, affordances. A record
// the projection would refuse (two labels) is refused here, where the record is in the file.
import Type, { type TObject, type TSchema } from 'typebox'
import { choices, declareRecord, Decimal, mark, Marking, Nullable, type Affordance, type Formatter, type RecordDeclaration } from '../declare/index.js'
import { dateFormatter, moneyFormatter, numberFormatter } from '../declare/built-in-formatters.js'
import { defineFormatter } from '../declare/formatter.js'
import { buildProjection } from '../projection/build.js'
import { changed } from '../schema-notes.js'
import { pointerOf, type Issue } from './errors.js'
import type { FieldDeclaration, FormattedMarking, Markings, RecordDeclarationEntry } from './schema.js'

const MARKING_KEYS = ['content', 'handle', 'label', 'hidden', 'formatted', 'timestamp'] as const

/** Each record declared, by name; what is wrong with one is added to `issues`, pointed at. */
export function compileRecords (records: Readonly<Record<string, RecordDeclarationEntry>>, issues: Issue[]): Map<string, RecordDeclaration> {
  const compiled = new Map<string, RecordDeclaration>()
  for (const [name, entry] of Object.entries(records)) {
    const at = pointerOf('records', name)
    const before = issues.length
    const schema = Type.Object(fieldsOf(entry.fields, `${at}/fields`, issues), annotations(entry))
    const affordances = affordancesOf(entry, at, issues)
    if (issues.length > before) continue
    const declaration = declareRecord(name, schema, affordances)
    try {
      buildProjection(declaration.schema, { name: `Record '${name}'` })
      compiled.set(name, declaration as RecordDeclaration)
    } catch (error) {
      issues.push({ pointer: at, message: (error as Error).message })
    }
  }
  return compiled
}

/** The marking `markings` names, at most one; undefined for none. */
export function markingOf (markings: Markings, at: string, issues: Issue[]): Marking | undefined {
  const named = MARKING_KEYS.filter((key) => markings[key] !== undefined && markings[key] !== false)
  if (named.length > 1) {
    issues.push({ pointer: at, message: `a field has one marking, but this one has ${named.join(' and ')}` })
    return undefined
  }
  const description = (value: unknown): string | undefined => typeof value === 'string' ? value : undefined
  switch (named[0]) {
    case undefined: return undefined
    case 'content': return Marking.content()
    case 'handle': return Marking.handle(description(markings.handle))
    case 'label': return Marking.label(description(markings.label))
    case 'hidden': return Marking.hidden()
    case 'timestamp': return Marking.timestamp(markings.timestamp?.format, markings.timestamp?.description)
    case 'formatted': {
      const formatter = formatterOf(markings.formatted as FormattedMarking, `${at}/formatted`, issues)
      return formatter === undefined ? undefined : Marking.formatted(formatter, markings.formatted?.description)
    }
  }
}

/** An action's body: its fields as a record's are, closed at every depth (an extra field is refused by name). */
export function bodyOf (fields: Readonly<Record<string, FieldDeclaration>>, at: string, issues: Issue[]): TObject {
  return closedAtEveryDepth(Type.Object(fieldsOf(fields, at, issues)))
}

/** `schema` with every object in it closed; each field's marking (a note) kept. */
function closedAtEveryDepth<T extends TSchema> (schema: T): T {
  const node = schema as TSchema & { type?: unknown, properties?: Record<string, TSchema>, items?: TSchema }
  if (node.type === 'object' && node.properties !== undefined) {
    const properties = Object.fromEntries(Object.entries(node.properties).map(([name, inner]) => [name, closedAtEveryDepth(inner)]))
    return changed(schema, { properties, additionalProperties: false })
  }
  return node.items === undefined ? schema : changed(schema, { items: closedAtEveryDepth(node.items) })
}

function fieldsOf (fields: Readonly<Record<string, FieldDeclaration>>, at: string, issues: Issue[]): Record<string, TSchema> {
  const schemas: Record<string, TSchema> = {}
  for (const [name, field] of Object.entries(fields)) {
    const schema = fieldOf(field, `${at}/${pointerOf(name).slice(1)}`, issues)
    if (schema !== undefined) schemas[name] = schema
  }
  return schemas
}

function fieldOf (field: FieldDeclaration, at: string, issues: Issue[]): TSchema | undefined {
  const base = baseOf(field, at, issues)
  if (base === undefined) return undefined
  const typed = field.nullable === true && field.choices === undefined ? Nullable(base) : base
  const marking = markingOf(field, at, issues)
  const marked = marking === undefined ? typed : mark(typed, marking)
  return field.optional === true ? Type.Optional(marked) : marked
}

function baseOf (field: FieldDeclaration, at: string, issues: Issue[]): TSchema | undefined {
  if ((field.type === undefined) === (field.choices === undefined)) {
    issues.push({ pointer: at, message: 'a field has either a "type" or "choices", not both nor neither' })
    return undefined
  }
  if (field.fields !== undefined && field.type !== 'object') issues.push({ pointer: `${at}/fields`, message: 'only an "object" field has fields' })
  if (field.items !== undefined && field.type !== 'array') issues.push({ pointer: `${at}/items`, message: 'only an "array" field has items' })
  const options = annotations(field)
  if (field.choices !== undefined) {
    const pairs = Array.isArray(field.choices) ? field.choices.map(({ value, display }) => [value, display] as const) : field.choices
    return choices(pairs as Readonly<Record<string, string>>, { ...options, ...(field.nullable === true ? { nullable: true } : {}) })
  }
  const limits = constraintsOf(field)
  switch (field.type) {
    case 'string': return Type.String({ ...limits, ...options })
    case 'integer': return Type.Integer({ ...limits, ...options })
    case 'number': return Type.Number({ ...limits, ...options })
    case 'boolean': return Type.Boolean(options)
    case 'decimal': return Decimal(options)
    case 'date': return Type.String({ format: 'date', ...options })
    case 'date-time': return Type.String({ format: 'date-time', ...options })
    case 'object':
      if (field.fields === undefined) {
        issues.push({ pointer: at, message: 'an "object" field declares its "fields"' })
        return undefined
      }
      return Type.Object(fieldsOf(field.fields, `${at}/fields`, issues), options)
    default: {
      if (field.items === undefined) {
        issues.push({ pointer: at, message: 'an "array" field declares its "items"' })
        return undefined
      }
      const items = fieldOf(field.items, `${at}/items`, issues)
      return items === undefined ? undefined : Type.Array(items, { ...(field.uniqueItems === undefined ? {} : { uniqueItems: field.uniqueItems }), ...options })
    }
  }
}

function formatterOf (declared: FormattedMarking, at: string, issues: Issue[]): Formatter | undefined {
  let formatter: Formatter
  try {
    switch (declared.formatter) {
      case 'money': formatter = moneyFormatter({ currency: declared.currency as string, in: declared.in }); break
      case 'number': formatter = numberFormatter({ decimals: declared.decimals, grouping: declared.grouping, unit: declared.unit }); break
      default: formatter = dateFormatter({ format: declared.format })
    }
  } catch (error) {
    issues.push({ pointer: at, message: (error as Error).message })
    return undefined
  }
  return declared.example === undefined ? formatter : defineFormatter({ ...formatter, schema: { ...formatter.schema, examples: [declared.example] } })
}

function affordancesOf (entry: RecordDeclarationEntry, at: string, issues: Issue[]): Record<string, Affordance<Record<string, unknown>>> {
  const affordances: Record<string, Affordance<Record<string, unknown>>> = {}
  for (const [action, declared] of Object.entries(entry.affordances ?? {})) {
    const where = `${at}/affordances/${pointerOf(action).slice(1)}`
    const { field, equals, in: values } = declared.when
    if (!Object.hasOwn(entry.fields, field)) {
      issues.push({ pointer: `${where}/when/field`, message: `names no field of the record; its fields: ${Object.keys(entry.fields).join(', ')}` })
    }
    if ((equals === undefined) === (values === undefined)) {
      issues.push({ pointer: `${where}/when`, message: 'says either "equals" or "in", not both nor neither' })
    }
    const admitted = values ?? [equals]
    const refusal = { code: declared.otherwise.code, reason: declared.otherwise.reason }
    affordances[action] = {
      description: declared.description,
      when: (row) => admitted.includes(row[field] as never) || refusal,
      ...(declared.action === undefined ? {} : { action: declared.action })
    }
  }
  return affordances
}

function annotations (declared: { readonly description?: string, readonly title?: string }): Record<string, string> {
  return {
    ...(declared.title === undefined ? {} : { title: declared.title }),
    ...(declared.description === undefined ? {} : { description: declared.description })
  }
}

function constraintsOf (field: FieldDeclaration): Record<string, unknown> {
  const limits: Record<string, unknown> = {}
  for (const key of ['pattern', 'minLength', 'maxLength', 'minimum', 'maximum'] as const) if (field[key] !== undefined) limits[key] = field[key]
  return limits
}
