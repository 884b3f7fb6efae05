// Entity tags as RFC 9110 compares them: what the ETag plugin decides a conditional request by, and
// what a plain list's route asks before it streams anything.

/** One entity tag, weak or strong; commas may sit inside the quotes. */
const ENTITY_TAG = /(?:W\/)?"[^"]*"/g

/**
 * `"<hash>"` -> `"<audience>-<hash>"`: one URL's two variants could hash alike (a record with nothing
 * to project) while their Content-Type differs, and a strong ETag must name one representation.
 */
export function withAudience (tag: string, audience: string): string {
  return tag.replace('"', `"${audience}-`)
}

/** True when a precondition header is `*` or names the current tag, compared as `same` compares. */
export function anyMatches (header: string | undefined, tag: string | undefined, same: (a: string, b: string) => boolean): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  return tag !== undefined && Array.from(header.matchAll(ENTITY_TAG), (match) => match[0]).some((sent) => same(sent, tag))
}

/** If-None-Match compares weakly: `W/"x"` and `"x"` are the same. */
export function weakly (a: string, b: string): boolean {
  return opaque(a) === opaque(b)
}

/** If-Match compares strongly: a weak tag matches nothing. */
export function strongly (a: string, b: string): boolean {
  return !a.startsWith('W/') && !b.startsWith('W/') && a === b
}

function opaque (tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag
}
