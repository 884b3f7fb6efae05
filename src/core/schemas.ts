// Both variants of a mount's body, computed once at registration from one projection: the plain
// item (every field) and the agent item (the projection's mirror), and what wraps each.
//
// Naming rule: the plain item is the declaration's name (`Book`); the agent item is
// `<base>ForAgents` and the agent envelope `<base>Page`, where `<base>` is the mount's `schemaName`,
// else the declaration's name. A mount whose overrides change the agent item must name its own
// base (`BookWithAuthors`): the document refuses one component name for two different schemas.
import type { RecordDeclaration } from '../declare/index.js'
import { named, withSharedNames } from '../openapi/components.js'
import type { PagingStyle } from '../paging/index.js'
import { projectSchema, type JsonSchema, type Projection } from '../projection/index.js'
import type { MountSettings } from './mount.js'

/** The body each audience is served. */
export interface Bodies {
  readonly plain: JsonSchema
  readonly agent: JsonSchema
}

/** A record: the declaration's schema to a plain client, its projection to an agent. */
export function recordBodies (declaration: RecordDeclaration<any>, projection: Projection, settings: MountSettings, schemaName = declaration.name): Bodies {
  const agent = projectSchema(declaration.schema, projection, { handleDescription: settings.handleDescription })
  return {
    plain: named(withSharedNames(declaration.schema as object as JsonSchema), declaration.name),
    agent: named(withSharedNames(agent), `${schemaName}ForAgents`)
  }
}

/** A list: a bare array to plain clients, the style's envelope (`envelope`) to agents. */
export function listBodies (items: Bodies, envelope: (item: JsonSchema) => JsonSchema, schemaName: string): Bodies {
  return {
    plain: { type: 'array', items: items.plain },
    agent: named(envelope(items.agent), `${schemaName}Page`)
  }
}

const PLAIN_TEXT: JsonSchema = { type: 'string', description: 'The whole text, each line ended by a line feed.' }
const LINE: JsonSchema = { type: 'string', description: 'One line of the text, without its line break.' }

/** A text: whole to plain clients; a window of lines to agents, one component for every text. */
export function textBodies (style: PagingStyle): Bodies {
  return { plain: PLAIN_TEXT, agent: named(style.schema(LINE), 'LineWindow') }
}

/** Bytes: the content itself to plain clients; a window of bytes to agents, one component for every byte mount. */
export function byteBodies (agent: JsonSchema): Bodies {
  return { plain: { type: 'string', format: 'binary', description: 'The content\'s bytes, whole or the range asked for.' }, agent: named(agent, 'ByteWindow') }
}
