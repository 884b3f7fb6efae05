// An action's target on an upstream HTTP API: the call's body sent (as it is, or mapped) with the
// upstream client's deadline, breaker, cap and credentials, and the upstream's answer read as the
// result record, checked against its declaration like any row read from it. A record the action is
// bound to is read from the upstream first and its affordance checked; the upstream decides again
// when it acts, since nothing holds the record between the two. The call is sent once, unless it
// carries an Idempotency-Key: then the key goes with it, and a failed attempt is retried as a read is.
import type { ActionInput, ActionTarget } from '../../core/action.js'
import { validators, type Validators } from '../../core/validators.js'
import type { RecordDeclaration } from '../../declare/index.js'
import type { RecordSource, SourceLog } from '../source.js'
import type { UpstreamClient, UpstreamMethod } from './client.js'
import { rowReader, type FieldPaths } from './rows.js'
import { UPSTREAM_PROBLEMS } from './source.js'

export interface UpstreamActionOptions<Input extends ActionInput, Result, Row> {
  /** The upstream's client: its origin, credentials, timeouts, breaker and cap. */
  readonly client: UpstreamClient
  /** Default POST. */
  readonly method?: UpstreamMethod
  /** The path on the upstream, from the call's input (`upstreamPath` fills a template, each value one segment). */
  readonly path: (input: Input) => string
  /** What is sent: the call's body unless mapped here. */
  readonly body?: (input: Input) => unknown
  /** The record the upstream's answer is read as: the action's result. */
  readonly declaration: RecordDeclaration<Result>
  /** Where the result's fields are in the upstream's answer, where the names differ. */
  readonly fields?: FieldPaths
  /** The answer's field holding the result, when it is wrapped (default: the answer is the result). */
  readonly item?: string
  /** The record the action acts on, read before it acts (an `upstreamRecord` of its path parameters): its affordance is checked on it. */
  readonly subject?: RecordSource<Input['params'], Row>
  /** The app's checks (`app.validators`), which compile the result's check. */
  readonly validators?: Validators
  /** Where what the upstream got wrong is told when a call brings no log of its own. */
  readonly log?: SourceLog
}

export function upstreamAction<Input extends ActionInput, Result, Row = undefined> (options: UpstreamActionOptions<Input, Result, Row>): ActionTarget<Input, Result, Row> {
  const { client, subject } = options
  const readers = rowReader(options.declaration.schema, options.fields ?? {}, client, (options.validators ?? validators()).rows)
  const sent = options.body ?? ((input: Input) => input.body)
  return {
    // The upstream's 404 is the action's, with a subject or without.
    problems: [...new Set([...UPSTREAM_PROBLEMS, 'AG_NOT_FOUND' as const, ...(subject?.problems ?? [])])],
    readsSubject: subject !== undefined,
    // Its result is settled once the upstream answered, outside any transaction of the store's.
    transactional: false,
    run: async (input, hooks, context) => {
      if (subject !== undefined) hooks.check(await subject.one(input.params, context))
      const url = new URL(options.path(input), client.origin)
      const log = context.log ?? options.log
      const response = await client.send(options.method ?? 'POST', url, sent(input), { notFound: 'absent', requestId: context.requestId, log, idempotencyKey: hooks.key })
      // The upstream knows no such record: the action's 404, as a read's.
      if (response === undefined) hooks.check(undefined)
      const answer = (response as NonNullable<typeof response>).body
      const result = readers({ url, log })(options.item === undefined ? answer : (answer as Record<string, unknown> | null)?.[options.item]) as Result
      await hooks.settle(result)
      return result
    }
  }
}
