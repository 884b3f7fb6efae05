export { buildProjection, ProjectionError, type FieldAction, type Projection, type ProjectionOptions } from './build.js'
export { projectPayload } from './payload.js'
export { annotateSchema, type AnnotateOptions } from './schema.js'
export type { JsonSchema } from './json-schema.js'
