// An action: what a route declares to be done when it is called (`POST /invoices/{id}/refund`),
// beside the reads, on the same core. Its closed body, who may call it, the record it answers with
// (projected for agents like any record) and its target: what acts, a statement in one transaction
// on the store (sources/store-action.ts) or anything else that keeps the same contract. An action
// bound to an affordance checks that affordance again when called, on the record as it is then.
import Type, { type TObject, type TSchema } from 'typebox'
import type { RecordDeclaration } from '../declare/index.js'
import type { Marking } from '../declare/index.js'
import { fieldInfo } from '../declare/field-info.js'
import { needsPrincipal, type Permission, type Principal } from '../permissions.js'
import { buildProjection, type Projection } from '../projection/index.js'
import type { ReadContext } from '../sources/index.js'
import { act, refusedEarly, type Acted, type ActionCall } from './act.js'
import { bodyChecker } from './body.js'
import type { ProblemCode } from './errors.js'
import { MountError, type MountSettings } from './mount.js'
import { recordBodies, type Bodies } from './schemas.js'
import { refusingNulls } from './stored-values.js'
import { argumentChecker } from './arguments.js'
import { validators } from './validators.js'
import type { Affordance } from '../declare/record.js'

/** The methods an action is called with: each changes something, none is a read. */
export const ACTION_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const
export type ActionMethod = typeof ACTION_METHODS[number]

/** A body's size when the action declares none: a few pages of JSON arguments. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024

/** What an action acts with: its path parameters and its body, both checked. */
export interface ActionInput<Params = Record<string, unknown>, Body = Record<string, unknown>> {
  readonly params: Params
  readonly body: Body
}

/** Who calls, as the transport authenticated them, and the request's id and log. */
export interface ActionContext extends ReadContext {
  readonly principal?: Principal
}

/** What the flow hands the target for one call. */
export interface ActionHooks<Row, Result> {
  /**
   * Refuses the call unless the bound affordance holds on `row`, the record as the target reads it
   * inside its transaction (409, with the affordance's code and reason); no record is a 404. An
   * action bound to no affordance only refuses a missing record.
   */
  readonly check: (row: Row | undefined) => void
  /**
   * Records the result where a retry with the same Idempotency-Key finds it: inside the target's
   * transaction when it passes one (`within`), so the work and its record commit together or not at all.
   */
  readonly settle: (result: Result, within?: unknown) => Promise<void>
  /**
   * A key of the call for a target that passes it on (an upstream's): a digest of the action, the
   * caller, the key they sent and the input, so that a retry of this call acts once there too and
   * another call under the same caller's key is another; absent for a call sent without a key.
   */
  readonly key?: string
}

/** What acts: runs the action once for `input`, calling `check` before anything changes and `settle` before it commits. */
export interface ActionTarget<Input = any, Result = any, Row = any> {
  /** The problems it can answer with (a store's, an upstream's). */
  readonly problems: readonly ProblemCode[]
  /** True when it reads the record it acts on and calls `check` with it: what an action bound to an affordance needs. */
  readonly readsSubject: boolean
  /**
   * True when its work commits in the store's own transaction, with its result settled inside it:
   * its keys are kept in the store. Any other target's are kept in Redis when the gateway has one
   * (replicas with stores of their own still share them), else in the store.
   */
  readonly transactional: boolean
  readonly run: (input: Input, hooks: ActionHooks<Row, Result>, context: ActionContext) => Promise<Result>
}

export interface ActionMount<Input extends ActionInput = any, Result = any, Row = any> {
  readonly kind: 'action'
  /** The operation's name: its OpenAPI operationId, its MCP tool's name, and what an affordance names. */
  readonly name: string
  /** Default POST. */
  readonly method?: ActionMethod
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tags?: readonly string[]
  /** The path parameters naming what it acts on (e.g. `{ id }`), if any. */
  readonly params?: TObject
  /** The closed record of its body's fields: anything else is refused, by name. */
  readonly body: TObject
  /** The largest body it takes (default DEFAULT_MAX_BODY_BYTES); a larger one is a 413. */
  readonly maxBodyBytes?: number
  /** Every check must allow the caller; an action open to anyone says so with `unrestricted`. */
  readonly permissions: readonly Permission[]
  /** What it answers with: the plain record, or the projected one for an agent. */
  readonly result: RecordDeclaration<Result>
  /** True when it creates what it answers with: 201 rather than 200. */
  readonly creates?: boolean
  /** True when it may destroy or undo something (MCP's destructiveHint); default true. */
  readonly destructive?: boolean
  /** True when calling it twice with the same input does no more than once (MCP's idempotentHint); default false. */
  readonly idempotent?: boolean
  /** The affordance it acts on: checked again, on the record the target reads, when it is called. */
  readonly affords?: { readonly declaration: RecordDeclaration<Row>, readonly affordance: string }
  readonly target: ActionTarget<Input, Result, Row>
}

/** An action ready to be called: what a transport publishes, and the flow it calls. */
export interface ActionResource {
  readonly kind: 'action'
  readonly name: string
  readonly method: ActionMethod
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly permissions: readonly Permission[]
  readonly params?: TObject
  /** The body as published: the declared fields, closed. */
  readonly body: TObject
  readonly maxBodyBytes: number
  /** The result each audience is served. */
  readonly bodies: Bodies
  /** 201 for an action that creates, else 200. */
  readonly status: 200 | 201
  readonly destructive: boolean
  readonly idempotent: boolean
  /** True when its target works outside the gateway's own store (an upstream API): MCP's openWorldHint. */
  readonly openWorld: boolean
  /** The problems it can answer with besides a malformed request. */
  readonly problems: readonly ProblemCode[]
  /** Acts on one call (act.ts), as every transport calls it. */
  act: (call: ActionCall) => Promise<Acted>
  /** Audits and counts a call its transport refused before acting on it (its credentials, its rate, its body). */
  refused: (call: Pick<ActionCall, 'principal' | 'audit'>, error: unknown) => void
}

/** What the flow (act.ts) needs, prepared once at registration. */
export interface ActionPlan {
  readonly name: string
  readonly status: 200 | 201
  readonly target: ActionTarget
  /** Checks the path parameters and the body: one 400 naming every wrong one, with any already found (`problems`). */
  readonly check: (params: Readonly<Record<string, unknown>>, body: unknown, problems: Map<string, string[]>) => ActionInput
  /** The bound affordance, if any. */
  readonly affordance?: Affordance<any>
  /** Result -> the plain record, refusing a stored value its declaration does not admit. */
  readonly present: (result: any) => Record<string, unknown>
  readonly projection: Projection
  /** The body's top-level fields marked hidden: redacted from the audit log. */
  readonly hiddenFields: ReadonlySet<string>
}

export function compileAction (mount: ActionMount, settings: MountSettings): ActionResource {
  const named = `Action '${mount.name}'`
  const { acting } = settings
  if (acting === undefined) throw new MountError(`${named}: the gateway keeps no Idempotency-Keys for it (MountSettings.acting); mount it with app.mount.`)
  if (mount.permissions.length === 0) throw new MountError(`${named}: declare its permission checks; an action open to anyone says so with \`unrestricted\`.`)
  const method = mount.method ?? 'POST'
  if (!ACTION_METHODS.includes(method)) throw new MountError(`${named}: its method must be one of ${ACTION_METHODS.join(', ')}; a read is a mount.`)
  const maxBodyBytes = mount.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 2) throw new MountError(`${named}: maxBodyBytes must be an integer of at least 2 (the bytes of \`{}\`).`)
  const affordance = boundAffordance(mount, named)
  const body = closedBody(mount.body, named)
  const projection = buildProjection(mount.result.schema, { name: named, timeZone: settings.timeZone })
  const bodies = recordBodies(mount.result, projection, settings)
  const compile = settings.validators ?? validators()
  const checkParams = argumentChecker({ query: Type.Object({}, { additionalProperties: false }), params: mount.params }, compile.arguments)
  const checkBody = bodyChecker(body, compile.bodies)
  const status = mount.creates === true ? 201 : 200
  const plan: ActionPlan = {
    name: mount.name,
    status,
    target: mount.target,
    check: (params, sent, problems) => {
      let checkedParams: Record<string, unknown> = {}
      try {
        checkedParams = { ...checkParams({ audience: 'plain', query: {}, params }).params }
      } catch (error) {
        // Always the 400 naming each wrong parameter (argumentChecker's), merged into the body's.
        for (const [name, messages] of Object.entries((error as { errors: Record<string, string[]> }).errors)) problems.set(name, messages)
      }
      return { params: checkedParams, body: checkBody(sent, problems) }
    },
    affordance,
    present: refusingNulls(mount.result, mount.result.present),
    projection,
    hiddenFields: new Set(Object.entries(body.properties).filter(([, schema]) => isHidden(schema)).map(([name]) => name))
  }
  return {
    kind: 'action',
    name: mount.name,
    method,
    url: mount.url,
    summary: mount.summary,
    description: mount.description,
    tags: mount.tags,
    permissions: mount.permissions,
    params: mount.params,
    body,
    maxBodyBytes,
    bodies,
    status,
    destructive: mount.destructive ?? true,
    idempotent: mount.idempotent ?? false,
    openWorld: !mount.target.transactional,
    problems: problemsOf(mount, affordance),
    act: async (call) => await act(plan, call, acting),
    refused: (call, error) => { refusedEarly(mount.name, call, acting, error) }
  }
}

/** The affordance the action acts on, once it names this action back: one binding, said on both sides. */
function boundAffordance (mount: ActionMount, named: string): Affordance<any> | undefined {
  if (mount.affords === undefined) return undefined
  const { declaration, affordance: name } = mount.affords
  const affordance = Object.hasOwn(declaration.affordances, name) ? declaration.affordances[name] : undefined
  if (affordance === undefined) throw new MountError(`${named}: the record ${declaration.name} declares no affordance '${name}'.`)
  if (!mount.target.readsSubject) throw new MountError(`${named}: its target reads no record to check the affordance '${name}' on; give it a subject.`)
  if (affordance.action !== mount.name) {
    throw new MountError(`${named}: the affordance '${name}' of ${declaration.name} must name this action (\`action: '${mount.name}'\`), so that every answer tells an agent what to call.`)
  }
  return affordance
}

/** The declared body, closed at the top; a nested object must be closed by its declaration, or an extra field would pass unnamed. */
function closedBody (body: TObject, named: string): TObject {
  const open = openObjects(body.properties, '/body')
  if (open.length > 0) throw new MountError(`${named}: ${open.join(', ')} ${open.length === 1 ? 'is an object' : 'are objects'} open to other fields; declare it with additionalProperties: false.`)
  return Type.Object(body.properties, { ...annotationsOf(body), additionalProperties: false })
}

function openObjects (properties: Readonly<Record<string, TSchema>>, at: string): string[] {
  const open: string[] = []
  for (const [name, schema] of Object.entries(properties)) {
    const where = `${at}/${name}`
    const inner = (schema as { items?: TSchema }).items ?? schema
    const object = inner as { type?: unknown, properties?: Record<string, TSchema>, additionalProperties?: unknown }
    if (object.type !== 'object') continue
    if (object.additionalProperties !== false) open.push(where)
    open.push(...openObjects(object.properties ?? {}, where))
  }
  return open
}

function annotationsOf (schema: TObject): Record<string, unknown> {
  const { type: _type, properties: _properties, required: _required, additionalProperties: _additional, ...annotations } = schema as TObject & Record<string, unknown>
  return annotations
}

function isHidden (schema: TSchema): boolean {
  const marking: Marking | undefined = fieldInfo(schema).marking
  return marking?.kind === 'hidden'
}

/** A 401 and a 403 where it asks for a key; a 404 where it names a record; a 409 where it acts on an affordance; its target's. */
function problemsOf (mount: ActionMount, affordance: Affordance<unknown> | undefined): ProblemCode[] {
  // Each once: a target may name one the flow names too.
  return [...new Set<ProblemCode>([
    'AG_INVALID_ARGUMENTS',
    'AG_UNKNOWN_AUDIENCE',
    ...(needsPrincipal(mount.permissions) ? ['AG_UNAUTHORIZED', 'AG_FORBIDDEN'] as const : []),
    ...(mount.target.readsSubject ? ['AG_NOT_FOUND'] as const : []),
    'AG_NOT_ACCEPTABLE',
    ...(affordance === undefined ? [] : ['AG_ACTION_UNAVAILABLE'] as const),
    'AG_IDEMPOTENCY_IN_PROGRESS',
    'AG_BODY_TOO_LARGE',
    'AG_UNSUPPORTED_MEDIA_TYPE',
    'AG_IDEMPOTENCY_KEY_REUSED',
    'AG_RATE_LIMITED',
    // Where Idempotency-Keys are kept may not answer, whatever the target.
    'AG_STORE_UNAVAILABLE',
    ...mount.target.problems,
    'AG_OVERLOADED'
  ])]
}
