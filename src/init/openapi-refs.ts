// An OpenAPI document read as it is given (`unknown`): its objects, and its internal references
// (`#/components/...`) followed. A reference outside the document, or to nothing, is said in a note
// and read as absent; a reference back to a schema being read is the caller's to refuse (`Resolved.name`).

/** A JSON object of the document. */
export type Json = Readonly<Record<string, unknown>>

/** A note on the draft: what was guessed, or could not be. */
export interface Note {
  readonly pointer: string
  readonly note: string
}

/** `value` when it is a JSON object, else undefined. */
export function objectOf (value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Json : undefined
}

/** A string `value`, else undefined. */
export function textOf (value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** What a reference led to: the object, and the component's name when it was one (`#/components/schemas/Pet` -> `Pet`). */
export interface Resolved {
  readonly value: Json
  readonly name?: string
}

/** The most references followed in a chain: a chain this long goes round in a circle. */
const MAX_HOPS = 32

/**
 * `value` with its `$ref`s followed to the object they name, in `document`; undefined (with a note
 * saying why, for `what`) when a reference leads outside the document, to nothing, or round in a circle.
 */
export function resolve (document: Json, value: unknown, what: string, notes: Note[]): Resolved | undefined {
  let name: string | undefined
  let current = objectOf(value)
  for (let hops = 0; current !== undefined && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref
    if (!ref.startsWith('#/')) {
      notes.push({ pointer: '', note: `${what} refers to ${ref}, outside the document: only references inside it (#/components/...) are followed, so it is left out.` })
      return undefined
    }
    if (hops === MAX_HOPS) {
      notes.push({ pointer: '', note: `${what}: its references go round in a circle (${ref}), so it is left out.` })
      return undefined
    }
    const segments = ref.slice(2).split('/').map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'))
    if (segments.length === 3 && segments[0] === 'components' && segments[1] === 'schemas') name = segments[2]
    current = objectOf(segments.reduce<unknown>((node, segment) => objectOf(node)?.[segment], document))
    if (current === undefined) {
      notes.push({ pointer: '', note: `${what} refers to ${ref}, which the document does not hold, so it is left out.` })
      return undefined
    }
  }
  return current === undefined ? undefined : { value: current, ...(name === undefined ? {} : { name }) }
}
