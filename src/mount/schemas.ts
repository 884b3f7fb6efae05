// Both response variants of a mount, computed once at registration from one projection: the plain
// item (every field) and the agent item (the projection's mirror), and what wraps each.
import type { TSchema } from 'typebox'
import type { RecordDeclaration } from '../declare/index.js'
import type { PagingStyle } from '../paging/index.js'
import { annotateSchema, type JsonSchema, type Projection } from '../projection/index.js'
import type { MountSettings } from './definition.js'

export interface VariantSchemas {
  /** The plain record. */
  readonly plainItem: TSchema
  /** The projected record an agent is served. */
  readonly agentItem: JsonSchema
}

export function variantSchemas (declaration: RecordDeclaration, projection: Projection, settings: MountSettings): VariantSchemas {
  return {
    plainItem: declaration.schema,
    agentItem: annotateSchema(declaration.schema, projection, { handleDescription: settings.handleDescription })
  }
}

/** A list: a bare array to plain clients, the style's envelope to agents. */
export function listBodies (schemas: VariantSchemas, style: PagingStyle): { plain: JsonSchema, agent: JsonSchema } {
  return {
    plain: { type: 'array', items: schemas.plainItem as JsonSchema },
    agent: style.schema(schemas.agentItem)
  }
}
