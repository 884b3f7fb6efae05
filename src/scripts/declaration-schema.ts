// The declaration file's JSON Schema as it is published for editors, rendered the same way on
// every machine.
import { DeclarationFileSchema } from '../config-file/schema.js'

export { SCHEMA_PATH } from '../config-file/schema.js'

/** The committed form: two-space indentation, a trailing newline. */
export function renderSchema (): string {
  return `${JSON.stringify(DeclarationFileSchema, null, 2)}\n`
}
