// A record declaration: the item schema (fields with their markings) and the actions each row
// affords. Declared once; mounted as many times as routes need it.
import Type, { type Static, type TObject, type TProperties, type TSchema } from 'typebox'

/** Each affordance answers per row: available, or not with a machine code and a human reason. */
export type Availability = ({ available: true } | { available: false, code: string, reason: string }) & { action?: string }

export interface Affordance<Row> {
  readonly description: string
  /** `true` when the action is available on `row`, otherwise why not. */
  readonly when: (row: Row) => true | { code: string, reason: string }
  /**
   * The action that acts on it (an action mount's name: its operationId and MCP tool), told with
   * every answer so an agent knows what to call; that action checks `when` again when called.
   */
  readonly action?: string
}

export interface RecordDeclaration<Row = Record<string, unknown>> {
  /** A component name for the plain item (`Book`); the agent item is `<name>ForAgents`. */
  readonly name: string
  /** The plain item schema as served, `affordances` included when the record declares any. */
  readonly schema: TObject
  /** Row -> the presented record: its JSON values, plus the answer of every affordance. */
  readonly present: (row: Row) => Record<string, unknown>
  /** What each row affords, by name: an action bound to one checks its `when` again. */
  readonly affordances: Readonly<Record<string, Affordance<Row>>>
}

/** The row type a declaration presents: what a source must yield for it. */
export type RowOf<D> = D extends RecordDeclaration<infer Row> ? Row : never

/** Where an affordance is bound to an action, each answer names it: what an agent calls. */
const ACTION = Type.Optional(Type.String({ description: 'The action that acts on the record (its operationId over HTTP, its tool\'s name over MCP), when one does: call it while available.' }))

export const AvailabilitySchema = Type.Union([
  Type.Object({ available: Type.Literal(true), action: ACTION }, { additionalProperties: false }),
  Type.Object({
    available: Type.Literal(false),
    code: Type.String({ description: 'A stable machine-readable reason.' }),
    reason: Type.String({ description: 'Why the action is unavailable, for a human.' }),
    action: ACTION
  }, { additionalProperties: false })
], { description: 'Whether the action is available on this record, and if not, why.' })

/** Declares a record. The row type is the schema's static type. */
export function declareRecord<P extends TProperties> (
  name: string,
  schema: TObject<P>,
  affordances: Readonly<Record<string, Affordance<Static<TObject<P>>>>> = {}
): RecordDeclaration<Static<TObject<P>>> {
  const actions = Object.entries(affordances)
  if (actions.length === 0) return Object.freeze({ name, schema, present: identity, affordances: {} })
  const { properties, ...annotations } = schema as TObject<P> & Record<string, unknown>
  const affordanceSchemas: Record<string, TSchema> = {}
  for (const [action, affordance] of actions) affordanceSchemas[action] = { ...AvailabilitySchema, description: describedAffordance(affordance) }
  const full = Type.Object(
    { ...properties, affordances: Type.Object(affordanceSchemas, { description: 'What can be done with this record.' }) },
    pickAnnotations(annotations)
  )
  return Object.freeze({
    name,
    schema: full,
    present: (row: Static<TObject<P>>): Record<string, unknown> => ({ ...(row as object), affordances: answer(row, actions) }),
    affordances: Object.freeze({ ...affordances })
  })
}

/** What an affordance is, and the action that acts on it, if one does. */
function describedAffordance (affordance: Affordance<any>): string {
  return affordance.action === undefined ? affordance.description : `${affordance.description} Acted on by ${affordance.action}.`
}

/** One row's answer to an affordance: available, or why not; each names its action when it has one. */
export function availability<Row> (row: Row, affordance: Affordance<Row>): Availability {
  const verdict = affordance.when(row)
  const answered: Availability = verdict === true ? { available: true } : { available: false, code: verdict.code, reason: verdict.reason }
  // Assigned, not spread: a spread followed by a property of its own costs V8 about a microsecond, and every row makes one.
  return affordance.action === undefined ? answered : Object.assign(answered, { action: affordance.action })
}

function answer<Row> (row: Row, actions: ReadonlyArray<[string, Affordance<Row>]>): Record<string, Availability> {
  const answers: Record<string, Availability> = {}
  for (const [name, affordance] of actions) answers[name] = availability(row, affordance)
  return answers
}

function pickAnnotations (schema: Record<string, unknown>): Record<string, unknown> {
  const { type: _type, required: _required, ...annotations } = schema
  return annotations
}

function identity<T> (row: T): Record<string, unknown> {
  return row as Record<string, unknown>
}
