// What of a file the schema accepted, entry by entry: a record, upstream, source or mount the schema
// refuses is set aside and the others go on to be compiled, so one check reports the problems of
// every stage at once. A problem in the file's frame (no "records", "mounts" not a list) leaves
// nothing to go on with; one in `info`, `tags` or an unknown top-level key only sets that key aside.
import type { ErrorObject } from 'ajv'
import { pointerOf } from './errors.js'
import type { DeclarationFile } from './schema.js'

/** The parts of a file that hold named (or, for mounts, numbered) entries. */
const ENTRIES: ReadonlySet<string> = new Set(['records', 'upstreams', 'sources', 'mounts'])

/** The file as far as the schema accepted it. */
export interface Accepted {
  /** The file without the records, upstreams and sources refused; a refused mount keeps its place, so the others keep their index. */
  readonly declarations: DeclarationFile
  /** The pointers of the entries refused (`/records/Book`, `/mounts/2`). */
  readonly refused: ReadonlySet<string>
}

/** `value` without the entries `errors` fall in; undefined when one falls in the file's frame. */
export function acceptedParts (value: Readonly<Record<string, unknown>>, errors: readonly ErrorObject[]): Accepted | undefined {
  const refused = new Set<string>()
  const aside = new Set<string>()
  for (const error of errors) {
    const [top, entry] = segmentsOf(error)
    if (top === undefined || (ENTRIES.has(top) && entry === undefined)) return undefined
    if (ENTRIES.has(top)) refused.add(pointerOf(top, entry))
    else aside.add(top)
  }
  const kept = Object.entries(value).filter(([key]) => !aside.has(key)).map(([key, part]) =>
    [key, ENTRIES.has(key) && key !== 'mounts' ? without(part as Record<string, unknown>, key, refused) : part])
  return { declarations: Object.fromEntries(kept) as unknown as DeclarationFile, refused }
}

/** Where an error is, as the segments of a path from the top, down to the key it names. */
function segmentsOf (error: ErrorObject): string[] {
  const params = error.params as { propertyName?: string, additionalProperty?: string }
  const named = error.propertyName ?? params.propertyName ?? params.additionalProperty
  const path = error.instancePath.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
  return named === undefined ? path : [...path, named]
}

function without (entries: Readonly<Record<string, unknown>>, part: string, refused: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([name]) => !refused.has(pointerOf(part, name))))
}
