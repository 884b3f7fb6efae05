// Generated records (fast-check) for the demo declarations, drawn from their plain schemas and
// projected as their mounts project them. For any record: the plain payload validates against the
// plain schema and the projected one against the annotated agent schema; a hidden field never
// reaches the projection, at any depth, and every other field does; the input is never written to.
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import t from 'tap'
import { Book } from '../../../routes/books/book.js'
import { Invoice } from '../../../routes/invoices/invoice.js'
import { LedgerEntry } from '../../../routes/ledger/entry.js'
import { Marking, type RecordDeclaration } from '../../../src/declare/index.js'
import { projectSchema, buildProjection, projectPayload, type JsonSchema, type Projection } from '../../../src/projection/index.js'
import { createAjv } from '../../helpers/ajv.js'
import { deepFreeze } from '../../helpers/freeze.js'
import { propertyRuns, propertySeed } from '../../helpers/fast-check.js'

/** Fixed, so a run is repeatable; a failure prints it with the path to its counterexample. */
const SEED = propertySeed(7_2026)
const NUM_RUNS = propertyRuns(200)

const HANDLE_DESCRIPTION = 'An identifier to pass to other tools. Never read it out.'
/** Zones with odd offsets and daylight saving, where a timestamp is most likely to go wrong. */
const TIME_ZONES = ['UTC', 'Europe/Paris', 'America/St_Johns', 'Pacific/Kiritimati', 'Asia/Kathmandu'] as const

interface Case {
  readonly name: string
  readonly declaration: RecordDeclaration<never>
  readonly overrides?: Readonly<Record<string, Marking>>
}

/** The declarations as routes/ mounts them. */
const CASES: readonly Case[] = [
  { name: 'Book', declaration: Book },
  { name: 'Book with authors', declaration: Book, overrides: { author_id: Marking.handle() } },
  { name: 'Invoice', declaration: Invoice },
  { name: 'LedgerEntry', declaration: LedgerEntry }
]

/** Dates luxon and RFC 3339 both read, a day inside year 1 and year 9999 whatever the offset. */
const EARLIEST = new Date('0001-01-02T00:00:00Z')
const LATEST = new Date('9999-12-30T23:59:59Z')

const ajv = createAjv()

t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs per declaration (FC_RUNS)`)

for (const { name, declaration, overrides } of CASES) {
  const plainSchema = declaration.schema as unknown as JsonSchema
  const validatePlain = ajv.compile(plainSchema)
  const variants = new Map(TIME_ZONES.map((timeZone) => {
    const projection = buildProjection(declaration.schema, { name, overrides, timeZone })
    const agentSchema = projectSchema(plainSchema, projection, { handleDescription: HANDLE_DESCRIPTION })
    return [timeZone, { projection, validateAgent: ajv.compile(agentSchema), hidden: hiddenNames(projection, plainSchema) }]
  }))

  t.test(`${name}: any record projects to a valid agent payload with no hidden field, its input untouched`, async (t) => {
    const records = fc.array(arbitraryOf(plainSchema), { maxLength: 4 })
    fc.assert(fc.property(records, fc.constantFrom(...TIME_ZONES), (rows, timeZone) => {
      const { projection, validateAgent, hidden } = variants.get(timeZone) as NonNullable<ReturnType<typeof variants.get>>
      const presented = deepFreeze(rows.map((row) => (declaration.present as (row: unknown) => Record<string, unknown>)(row)))
      const before = structuredClone(presented)
      for (const record of presented) {
        if (!validatePlain(record)) fail('a plain record the plain schema refuses', record, validatePlain.errors)
      }
      // Frozen at every depth: a write anywhere in the projection throws here.
      const projected = projectPayload(presented, projection) as unknown[]
      const one = presented.length === 0 ? undefined : projectPayload(presented[0], projection)
      if (!isDeepStrictEqual(presented, before)) fail('the input changed', before, presented)
      if (presented.length > 0 && !isDeepStrictEqual(one, projected[0])) fail('a record projects unlike the same record in a list', one, projected[0])
      projected.forEach((record, i) => {
        if (!validateAgent(record)) fail(`a projected record the agent schema (${timeZone}) refuses`, record, validateAgent.errors)
        if (record === presented[i]) fail('the projection handed back its input', record)
        const leaks = keysIn(record, '$').filter(({ key }) => hidden.has(key))
        if (leaks.length > 0) fail('hidden fields projected', leaks.map(({ at }) => at))
        const unlike = keysUnlike(presented[i], record, projection, '$')
        if (unlike.length > 0) fail('keys projected other than the plain record\'s less its hidden ones', unlike)
        const unformatted = unrendered(presented[i], record, projection)
        if (unformatted.length > 0) fail('formatted fields served as stored', unformatted)
      })
    }), { seed: SEED, numRuns: NUM_RUNS })
    t.pass(`${NUM_RUNS} generated lists projected in ${TIME_ZONES.length} zones`)
  })
}

t.test('the generated records hold what the checks look for', async (t) => {
  // Drawn with the same seed: the hidden fields are present (and nested ones filled) often enough.
  const sample = fc.sample(arbitraryOf(Invoice.schema as unknown as JsonSchema), { seed: SEED, numRuns: NUM_RUNS }) as Array<Record<string, unknown>>
  t.ok(sample.every((record) => 'etag' in record), 'every invoice holds its etag')
  t.ok(sample.some((record) => (record.lines as unknown[]).length > 0), 'some invoice has lines, each with an internal cost')
  t.ok(sample.some((record) => !('note' in record)) && sample.some((record) => 'note' in record), 'the optional note is both absent and present')
  const hidden = hiddenNames(buildProjection(Invoice.schema, { name: 'Invoice' }), Invoice.schema as unknown as JsonSchema)
  t.strictSame([...hidden].sort(), ['etag', 'internal_cost', 'secret'])
})

/** Throws what went wrong, with the values involved, for fast-check to report with its seed. */
function fail (what: string, ...values: unknown[]): never {
  throw new Error(`${what}: ${values.map((value) => JSON.stringify(value)).join(' ')}`)
}

/**
 * An arbitrary of the values `schema` admits, for the shapes the declarations use: const, enum,
 * oneOf/anyOf, type lists, the scalar types and their formats, arrays (unique or not) and objects
 * (their optional properties sometimes absent).
 */
function arbitraryOf (schema: JsonSchema): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum as unknown[])
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined
  if (branches !== undefined) return fc.oneof(...branches.map(arbitraryOf))
  const types = [schema.type ?? []].flat()
  if (types.length !== 1) return fc.oneof(...types.map((type) => arbitraryOf({ ...schema, type })))
  switch (types[0]) {
    case 'null': return fc.constant(null)
    case 'boolean': return fc.boolean()
    case 'integer': return fc.maxSafeInteger()
    case 'number': return fc.double({ noNaN: true, noDefaultInfinity: true })
    case 'string': return stringOf(schema.format)
    case 'array': {
      const items = arbitraryOf(schema.items as JsonSchema)
      return schema.uniqueItems === true ? fc.uniqueArray(items, { maxLength: 4, selector: (item) => JSON.stringify(item) }) : fc.array(items, { maxLength: 4 })
    }
    case 'object': {
      const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, field]) => [key, arbitraryOf(field)]))
      return fc.record(properties, { requiredKeys: [...schema.required ?? []], noNullPrototype: true })
    }
  }
  throw new Error(`No arbitrary for the schema ${JSON.stringify(schema)}`)
}

/** Strings of a format: RFC 3339 dates and date-times (any offset), decimals, or any text. */
function stringOf (format: unknown): fc.Arbitrary<string> {
  const moment = fc.date({ min: EARLIEST, max: LATEST, noInvalidDate: true })
  switch (format) {
    case 'date': return moment.map((date) => date.toISOString().slice(0, 10))
    case 'date-time': return fc.oneof(
      { weight: 8, arbitrary: fc.tuple(moment, fc.integer({ min: -14 * 60, max: 14 * 60 }), fc.boolean()).map(([date, offset, fraction]) => dateTime(date, offset, fraction)) },
      // What RFC 3339 (and the schema) also admits: a lower-case t and z, a space, a leap second.
      { weight: 1, arbitrary: fc.tuple(moment, fc.constantFrom('t', ' ', 'T'), fc.constantFrom('z', 'Z')).map(([date, separator, utc]) => `${date.toISOString().slice(0, 10)}${separator}${date.toISOString().slice(11, 19)}${utc}`) },
      { weight: 1, arbitrary: moment.map((date) => `${date.toISOString().slice(0, 10)}T23:59:60Z`) }
    )
    case 'decimal': return fc.stringMatching(/^-?\d{1,15}(?:\.\d{1,6})?$/)
    default: return fc.string({ unit: 'grapheme', maxLength: 20 })
  }
}

/** `date` as RFC 3339 at a UTC offset of `offset` minutes (`Z` for none), with or without a fraction. */
function dateTime (date: Date, offset: number, fraction: boolean): string {
  const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, fraction ? 23 : 19)
  if (offset === 0) return `${local}Z`
  const minutes = Math.abs(offset)
  return `${local}${offset < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

/**
 * The top-level formatted fields whose non-null value was served as stored. None of the demo
 * formatters (euros, timestamps) gives back its input: one that did was skipped.
 */
function unrendered (plain: Record<string, unknown>, projected: unknown, projection: Projection): string[] {
  return [...projection.fields].filter(([key, action]) => action.action === 'format' && plain[key] !== null && plain[key] !== undefined &&
    (projected as Record<string, unknown>)[key] === plain[key]).map(([key]) => `${key}: ${JSON.stringify(plain[key])}`)
}

/** The names the projection hides anywhere that it shows nowhere: such a key is a leak wherever it occurs. */
function hiddenNames (projection: Projection, schema: JsonSchema): Set<string> {
  const hidden = new Set<string>()
  const shown = new Set<string>()
  collect(projection, schema)
  return new Set([...hidden].filter((name) => !shown.has(name)))

  function collect (projection: Projection, schema: JsonSchema): void {
    for (const [key, field] of Object.entries(schema.properties ?? {})) {
      const action = projection.fields.get(key)
      if (action?.action === 'hide') hidden.add(key)
      else shown.add(key)
      if (action?.action === 'nest') collect(action.projection, (action.each ? field.items : field) as JsonSchema)
    }
  }
}

function keysIn (value: unknown, at: string): Array<{ key: string, at: string }> {
  if (Array.isArray(value)) return value.flatMap((member, i) => keysIn(member, `${at}[${i}]`))
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([key, member]) => [{ key, at: `${at}.${key}` }, ...keysIn(member, `${at}.${key}`)])
}

/**
 * Where the projected record's keys differ from the plain record's less the hidden ones, the
 * nested records' included (each member of a nested list).
 */
function keysUnlike (plain: unknown, projected: unknown, projection: Projection, at: string): string[] {
  if (typeof plain !== 'object' || plain === null || typeof projected !== 'object' || projected === null) return []
  const expected = Object.keys(plain).filter((key) => projection.fields.get(key)?.action !== 'hide')
  const found = Object.keys(projected)
  if (!isDeepStrictEqual(found, expected)) return [`${at}: ${JSON.stringify(found)} instead of ${JSON.stringify(expected)}`]
  return expected.flatMap((key) => {
    const action = projection.fields.get(key)
    if (action?.action !== 'nest') return []
    const plainValue = (plain as Record<string, unknown>)[key]
    const projectedValue = (projected as Record<string, unknown>)[key]
    if (!action.each) return keysUnlike(plainValue, projectedValue, action.projection, `${at}.${key}`)
    return (plainValue as unknown[]).flatMap((member, i) => keysUnlike(member, (projectedValue as unknown[])[i], action.projection, `${at}.${key}[${i}]`))
  })
}
