// What a client sent, quoted back in a problem: bounded, so that an argument name or a header value
// of kilobytes costs the answer a few dozen characters, and a request of many wrong names a few lines.

/** The most characters of one sent value a problem quotes. */
export const MAX_ECHOED_CHARACTERS = 64

/** The most sent names (arguments, audiences) one problem lists. */
export const MAX_ECHOED_NAMES = 20

/** `text` as a problem quotes it: whole when short, else its start and how long it was. */
export function echoed (text: string): string {
  if (text.length <= MAX_ECHOED_CHARACTERS) return text
  // Never half of a surrogate pair: the cut moves back one code unit instead.
  const end = isHighSurrogate(text.charCodeAt(MAX_ECHOED_CHARACTERS - 1)) ? MAX_ECHOED_CHARACTERS - 1 : MAX_ECHOED_CHARACTERS
  return `${text.slice(0, end)}… (${text.length} characters)`
}

/** `names` as a problem lists them: each quoted as `quote` writes it, the first MAX_ECHOED_NAMES, then how many more. */
export function echoedList (names: readonly string[], quote: (name: string) => string = echoed): string {
  const listed = names.slice(0, MAX_ECHOED_NAMES).map(quote).join(', ')
  return names.length > MAX_ECHOED_NAMES ? `${listed} and ${names.length - MAX_ECHOED_NAMES} more` : listed
}

/** A name as a problem lists it: a plain one as it is, any other (spaces, line breaks, cut short) quoted as JSON, so it cannot pass for a line of its own. */
export function quotedName (name: string): string {
  return /^[\w./-]+$/.test(name) ? name : JSON.stringify(name)
}

function isHighSurrogate (code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
