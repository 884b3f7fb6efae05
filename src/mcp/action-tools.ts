// An action as an MCP tool: it changes something (readOnlyHint false), may destroy or undo
// (destructiveHint) and may be safe to repeat (idempotentHint), as the action declares. Its input
// is the path parameters and the body's fields in one closed object, plus `idempotency_key`, which
// makes a retry safe as the Idempotency-Key header does over HTTP; its output is the projected
// result. A refusal is a tool result with `isError`, in the problem's words, as for reads.
import type { ActionResource } from '../core/action.js'
import { KEPT_SECONDS, keySchema } from '../core/idempotency.js'
import { MountError } from '../core/mount.js'
import { answered, failed, splitArguments, type Tool, type ToolDefinition } from './tools.js'

/** The argument that carries a call's Idempotency-Key. */
export const IDEMPOTENCY_ARGUMENT = 'idempotency_key'

const KEY_SCHEMA = keySchema(`Makes the call safe to retry: send the same key again (a UUID made for this call) and, within ${KEPT_SECONDS / 3600} hours, the first call's result is answered without acting again. Without one, a retry acts again.`)

export function actionToolOf (action: ActionResource): Tool {
  const pathNames = Object.keys(action.params?.properties ?? {})
  const fields = Object.keys(action.body.properties)
  const clash = [...pathNames, IDEMPOTENCY_ARGUMENT].filter((name) => fields.includes(name))
  if (clash.length > 0) throw new MountError(`Action '${action.name}': ${clash.join(', ')} is both a body field and a path parameter (or the tool's ${IDEMPOTENCY_ARGUMENT}); a tool takes one object of arguments.`)
  const required = [...(action.params?.required ?? []), ...(action.body.required ?? [])]
  const definition: ToolDefinition = {
    name: action.name,
    title: action.summary,
    description: action.description ?? action.summary,
    inputSchema: {
      type: 'object',
      properties: { ...action.params?.properties, ...action.body.properties, [IDEMPOTENCY_ARGUMENT]: KEY_SCHEMA },
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false
    } as unknown as ToolDefinition['inputSchema'],
    outputSchema: action.bodies.agent as ToolDefinition['outputSchema'],
    annotations: { readOnlyHint: false, destructiveHint: action.destructive, idempotentHint: action.idempotent, openWorldHint: action.openWorld }
  }
  const isPath = new Set(pathNames)
  return {
    definition,
    permissions: action.permissions,
    call: async (args, onFailure, context = {}) => {
      const { params, rest: body } = splitArguments(args, isPath)
      const key = body[IDEMPOTENCY_ARGUMENT]
      delete body[IDEMPOTENCY_ARGUMENT]
      try {
        const { log } = context
        const audit = log?.info === undefined ? undefined : { info: log.info.bind(log) }
        const acted = await action.act({ audience: 'agent', params, body, idempotencyKey: key, keyName: IDEMPOTENCY_ARGUMENT, ...context, audit })
        return answered(acted.body)
      } catch (error) {
        return failed(error, onFailure, context.requestId)
      }
    }
  }
}
