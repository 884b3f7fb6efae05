export { buildProjection, ProjectionError, type FieldAction, type Projection, type ProjectionOptions } from './build.js'
export { projectPayload } from './payload.js'
export { projectSchema, type ProjectSchemaOptions } from './schema.js'
export type { JsonSchema } from './json-schema.js'
