// What is wrong with a declaration file, each problem where it is: the JSON pointer of the value,
// and its line and column when the text could be read. Every problem is one line; a user's file
// never ends in a stack trace.

/** Line and column (1-based) in the file's text. */
export interface Place {
  readonly line: number
  readonly column: number
}

/** One problem: where (a JSON pointer into the file) and what was expected. */
export interface Issue {
  readonly pointer: string
  readonly message: string
  /** Where in the text, when the pointer cannot say (the text itself does not parse). */
  readonly at?: Place
}

/** Line and column of the value at a pointer, when they can be found. */
export type Locate = (pointer: string) => Place | undefined

export class DeclarationFileError extends Error {
  override name = 'DeclarationFileError'

  /** `lines`: every problem, one line each, with its location. */
  constructor (readonly lines: readonly string[]) {
    super(lines.join('\n'))
  }
}

/** What a start (or a check) says of a refused file: a count, then every problem on a line of its own. */
export function refusalReport (lines: readonly string[]): string {
  return `Invalid declaration file (${lines.length} ${lines.length === 1 ? 'problem' : 'problems'}):\n${lines.join('\n')}\n`
}

/** The file's problems, each as `path:line:column: /pointer: message`, in the order of the file. */
export function declarationFileError (path: string, issues: readonly Issue[], locate: Locate): DeclarationFileError {
  const seen = new Set<string>()
  const located = issues.map((issue) => ({ ...issue, at: issue.at ?? locate(issue.pointer) })).filter(({ pointer, message }) => {
    const key = `${pointer}\n${message}`
    return seen.has(key) ? false : seen.add(key) !== undefined
  })
  located.sort((a, b) => placeOf(a.at) - placeOf(b.at))
  return new DeclarationFileError(located.map(({ pointer, message, at }) =>
    `${path}${at === undefined ? '' : `:${at.line}:${at.column}`}: ${pointer === '' ? '/' : pointer}: ${message}`))
}

/** Where a problem is, as one number that sorts by line, then column; one that cannot be located first. */
function placeOf (at: Issue['at']): number {
  return at === undefined ? 0 : at.line * 1_000_000 + at.column
}

/** A JSON pointer from its segments (RFC 6901 escapes). */
export function pointerOf (...segments: ReadonlyArray<string | number>): string {
  return segments.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}
