// The words a draft guesses from: names that look like a handle, a label, something an agent should
// not be shown, a cursor; and how a name or a stored value is made into a name or a display.

/** A record's, source's or upstream's name in a declaration file. */
const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/

/** Field names that name a record, best first. */
export const LABEL_NAMES = ['name', 'title', 'label', 'display_name', 'displayName', 'full_name', 'fullName', 'username', 'login', 'subject', 'headline']

/** Names (lower case, without separators) that look secret or personal. */
const HIDDEN = /password|passwd|secret|token|apikey|privatekey|email|phone|mobile|ssn|socialsecurity|creditcard|cardnumber|cvv|iban|birth|^dob$/

/** Whether a field named `name` looks secret or personal. */
export function looksHidden (name: string): boolean {
  return HIDDEN.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''))
}

/** The words of a name: `in_stock`, `inStock`, `IN-STOCK` are all `in stock`. */
export function wordsOf (text: string): string[] {
  return text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[^A-Za-z0-9]+/).filter((word) => word !== '').map((word) => word.toLowerCase())
}

/** What an agent is shown for a stored value: its words, the first capitalised (`in_stock` -> `In stock`). */
export function displayOf (value: string | number | boolean): string {
  const words = typeof value === 'string' ? wordsOf(value) : []
  if (words.length === 0) return String(value) === '' ? '(empty)' : String(value)
  const sentence = words.join(' ')
  return sentence[0].toUpperCase() + sentence.slice(1)
}

/** A name in PascalCase (`list_pets` -> `ListPets`), or '' when it has no letters or digits. */
export function pascal (text: string): string {
  return wordsOf(text).map((word) => word[0].toUpperCase() + word.slice(1)).join('')
}

/** A name in camelCase (`GET /pets/{id}` -> `getPetsId`). */
export function camel (text: string): string {
  const name = pascal(text)
  return name === '' ? '' : name[0].toLowerCase() + name.slice(1)
}

/** An environment variable's name: `petstore` and `api_key` -> `PETSTORE_API_KEY`. */
export function variable (...parts: string[]): string {
  return parts.flatMap(wordsOf).join('_').toUpperCase()
}

/**
 * `wanted` made a name the file accepts (`pattern`; `fallback` when nothing of it is left) and not yet
 * in `taken`, which it is added to: `Pet`, then `Pet2`.
 */
export function uniqueName (wanted: string, taken: Set<string>, fallback: string, pattern = NAME): string {
  const cleaned = wanted.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[^A-Za-z]+/, '')
  const base = pattern.test(cleaned) ? cleaned : fallback
  let name = base
  for (let count = 2; taken.has(name.toLowerCase()); count++) name = `${base}${count}`
  taken.add(name.toLowerCase())
  return name
}
