// A file's SQL statement with named parameters (`where id = :id`), compiled once into one that
// binds each as a parameter of the driver's, never as text pasted in. A `:` inside a quoted string or
// identifier, a comment, or PostgreSQL's `::` cast is left as it is.
import { sql, type RawBuilder } from 'kysely'

export interface Statement {
  /** The parameters it names, each once, in order of first use. */
  readonly names: readonly string[]
  /** The statement with `values` bound, by name. */
  readonly bind: (values: Readonly<Record<string, unknown>>) => RawBuilder<unknown>
}

const NAME_START = /[A-Za-z_]/
const NAME_PART = /[A-Za-z0-9_]/

/** `text` split into its SQL and its named parameters. */
export function compileStatement (text: string): Statement {
  const parts: Array<{ sql: string } | { name: string }> = []
  let chunk = ''
  let i = 0
  while (i < text.length) {
    const char = text[i]
    const skipped = quotedOrComment(text, i)
    if (skipped > i) {
      chunk += text.slice(i, skipped)
      i = skipped
    } else if (char === ':' && text[i + 1] === ':') {
      chunk += '::'
      i += 2
    } else if (char === ':' && NAME_START.test(text[i + 1] ?? '')) {
      let end = i + 2
      while (end < text.length && NAME_PART.test(text[end])) end++
      parts.push({ sql: chunk }, { name: text.slice(i + 1, end) })
      chunk = ''
      i = end
    } else {
      chunk += char
      i++
    }
  }
  parts.push({ sql: chunk })
  const names = [...new Set(parts.flatMap((part) => 'name' in part ? [part.name] : []))]
  return {
    names,
    // A body field left out (an optional one) is NULL, as SQL says it.
    bind: (values) => sql.join(parts.map((part) => 'sql' in part ? sql.raw(part.sql) : sql`${values[part.name] ?? null}`), sql.raw(''))
  }
}

/** Where the quoted string, quoted identifier or comment starting at `i` ends (after it); `i` when none starts there. */
function quotedOrComment (text: string, i: number): number {
  const char = text[i]
  if (char === '\'' || char === '"') {
    let end = i + 1
    while (end < text.length) {
      if (text[end] === char && text[end + 1] === char) end += 2
      else if (text[end] === char) return end + 1
      else end++
    }
    return text.length
  }
  if (char === '-' && text[i + 1] === '-') {
    const end = text.indexOf('\n', i)
    return end === -1 ? text.length : end
  }
  if (char === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2)
    return end === -1 ? text.length : end + 2
  }
  return i
}
