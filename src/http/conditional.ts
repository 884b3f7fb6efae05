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

/**
 * What the preconditions of a safe request decide for a representation tagged `tag` (`undefined`:
 * none known), in RFC 9110's order (section 13.2.2): If-Match naming nothing current fails (412), then
 * If-None-Match naming it is not modified (304); `undefined` when they leave the answer as it is.
 */
export function preconditionOutcome (headers: { 'if-match'?: string, 'if-none-match'?: string }, tag: string | undefined): 'failed' | 'not-modified' | undefined {
  const ifMatch = headers['if-match']
  if (ifMatch !== undefined && !anyMatches(ifMatch, tag, strongly)) return 'failed'
  return anyMatches(headers['if-none-match'], tag, weakly) ? 'not-modified' : undefined
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
