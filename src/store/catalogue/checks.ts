// The values a `CHECK (column IN (...))` admits, read from the text of a table's definition: a
// SQLite CREATE TABLE statement, or PostgreSQL's rendering of one check
// (`CHECK ((status = ANY (ARRAY['a'::text, 'b'::text])))`). Any other check says nothing here.

/** Each column a check lists the values of (its name in lower case), with those values. */
export function checkedValues (definition: string): Map<string, Array<string | number>> {
  const found = new Map<string, Array<string | number>>()
  for (const match of definition.matchAll(IN_LIST)) {
    const values = literals(match[2])
    if (values !== undefined) found.set(unquoted(match[1]).toLowerCase(), values)
  }
  for (const match of definition.matchAll(ANY_ARRAY)) {
    const values = literals(match[2].replace(/::[a-z ]+/gi, ''))
    if (values !== undefined) found.set(unquoted(match[1]).toLowerCase(), values)
  }
  return found
}

const NAME = String.raw`("(?:[^"]|"")+"|\`[^\`]+\`|\[[^\]]+\]|[A-Za-z_][A-Za-z0-9_]*)`
/** `CHECK (name IN (...))`, the whole check being the one condition. */
const IN_LIST = new RegExp(String.raw`check\s*\(\s*${NAME}\s+in\s*\(([^()]*)\)\s*\)`, 'gi')
/** PostgreSQL's `((name)::text = ANY ((ARRAY[...])::text[]))` and `(name = ANY (ARRAY[...]))`. */
const ANY_ARRAY = new RegExp(String.raw`check\s*\(\s*\(\s*\(?${NAME}\)?(?:::[a-z ]+)?\s*=\s*any\s*\(\s*\(?array\[([^\]]*)\]`, 'gi')
const LITERAL = /^\s*(?:'((?:[^']|'')*)'|(-?\d+(?:\.\d+)?))\s*$/

/** A comma-separated list of string or number literals, or undefined when it holds anything else. */
function literals (list: string): Array<string | number> | undefined {
  const values: Array<string | number> = []
  for (const item of splitOutsideQuotes(list)) {
    const match = LITERAL.exec(item)
    if (match === null) return undefined
    values.push(match[1] === undefined ? Number(match[2]) : match[1].replaceAll("''", "'"))
  }
  // splitOutsideQuotes gives one item at least, and `()` one empty item, which is no literal.
  return values
}

function splitOutsideQuotes (list: string): string[] {
  const items: string[] = []
  let current = ''
  let quoted = false
  for (const char of list) {
    if (char === "'") quoted = !quoted
    if (char === ',' && !quoted) {
      items.push(current)
      current = ''
    } else {
      current += char
    }
  }
  items.push(current)
  return items
}

function unquoted (name: string): string {
  if (name.startsWith('"')) return name.slice(1, -1).replaceAll('""', '"')
  return /^[`[]/.test(name) ? name.slice(1, -1) : name
}
