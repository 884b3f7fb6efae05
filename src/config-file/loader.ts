// Reads a declaration file's text: JSON (or YAML, by its extension), every value located by line
// and column, then checked against the published schema. What the schema refuses is carried, not
// thrown: the entries it accepts go on to the compiler, which reports every problem together. A
// pure function of the text, so a reload can run it again; the database is checked by the compiler.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml'
import { acceptedParts } from './accepted.js'
import { declarationFileError, type Issue, type Locate } from './errors.js'
import { DeclarationFileSchema, type DeclarationFile } from './schema.js'

/** A file read, what the schema accepted of it and what it refused, with how to locate any of its values. */
export interface LoadedFile {
  readonly path: string
  /** What the schema accepted: the records, upstreams and sources it refused are left out; a refused mount keeps its place. */
  readonly declarations: DeclarationFile
  /** What the schema refused, each problem pointed at; empty for a file it accepts whole. */
  readonly issues: readonly Issue[]
  /** The pointers of the entries refused (`/records/Book`, `/mounts/2`): the compiler reads none of them. */
  readonly refused: ReadonlySet<string>
  readonly locate: Locate
}

/**
 * The deepest a file may nest. A declaration's own shape is about ten levels deep; a file nested
 * thousands deep is refused before anything walks it.
 */
export const MAX_FILE_DEPTH = 64

/**
 * The schema's validator, compiled when the first file is read (about 200 ms): a process that
 * reads no file, the demo's or a test's, never compiles it.
 */
let validator: ValidateFunction | undefined

function validated (): ValidateFunction {
  validator ??= new Ajv({ allErrors: true, verbose: true, discriminator: true, strict: true, strictTypes: false }).compile(DeclarationFileSchema)
  return validator
}

/**
 * The file at `path` read from `text`, with what the schema refused of it; throws a DeclarationFileError
 * when there is nothing to go on with: text that does not parse, or a problem in the file's frame.
 */
export function loadDeclarationFile (path: string, source: string): LoadedFile {
  // Editors on some systems open a file with a byte order mark, which JSON.parse refuses.
  const text = source.replace(/^\uFEFF/, '')
  const yaml = /\.ya?ml$/i.test(path)
  const lines = new LineCounter()
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false })
  const locate = locator(document, lines)
  const parsed = yaml ? fromYaml(document, lines) : fromJson(text, document, lines)
  if ('issues' in parsed) throw declarationFileError(path, parsed.issues, () => undefined)
  if (depthOf(parsed.value) > MAX_FILE_DEPTH) throw declarationFileError(path, [{ pointer: '', message: `nests more than ${MAX_FILE_DEPTH} levels deep, which no declaration needs` }], () => undefined)
  const validate = validated()
  if (validate(parsed.value)) return { path, declarations: parsed.value as DeclarationFile, issues: [], refused: new Set(), locate }
  const errors = validate.errors as ErrorObject[]
  const accepted = acceptedParts(parsed.value as Record<string, unknown>, errors)
  if (accepted === undefined) throw declarationFileError(path, issuesOf(errors), locate)
  return { path, ...accepted, issues: issuesOf(errors), locate }
}

type Parsed = { value: unknown } | { issues: Issue[] }

function fromYaml (document: Document, lines: LineCounter): Parsed {
  if (document.errors.length > 0) return { issues: document.errors.map((error) => atOffset(error.pos[0], lines, `not YAML: ${error.message.split('\n')[0]}`)) }
  try {
    return { value: document.toJS() }
  } catch (error) {
    // The yaml package refuses aliases that would expand a small text into a huge value (a "billion laughs").
    return { issues: [{ pointer: '', message: `cannot be read as YAML: ${(error as Error).message}` }] }
  }
}

/** How deep `value` nests (a scalar is 0), walked without recursion; stops counting past the limit. */
function depthOf (value: unknown): number {
  let deepest = 0
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (typeof node !== 'object' || node === null) continue
    deepest = Math.max(deepest, depth + 1)
    if (deepest > MAX_FILE_DEPTH) return deepest
    for (const child of Object.values(node)) stack.push([child, depth + 1])
  }
  return deepest
}

/** JSON.parse is the judge of JSON; the YAML reading only adds what it misses (a key given twice). */
function fromJson (text: string, document: Document, lines: LineCounter): Parsed {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    const message = (error as Error).message
    const why = `not JSON: ${message.replace(/ in JSON at position \d+.*$/, '').replace(/,? ?".*" is not valid JSON$/, '')}`
    const offset = offsetOf(message, text)
    return { issues: [offset === undefined ? { pointer: '', message: why } : atOffset(offset, lines, why)] }
  }
  const duplicates = document.errors.filter((error) => error.code === 'DUPLICATE_KEY')
  if (duplicates.length > 0) return { issues: duplicates.map((error) => atOffset(error.pos[0], lines, 'a key is given twice in one object: the second would silently win')) }
  return { value }
}

/** Where JSON.parse stopped: the position it names, or the end of a text that ended too soon. */
function offsetOf (message: string, text: string): number | undefined {
  const position = /position (\d+)/.exec(message)
  if (position !== null) return Number(position[1])
  return message.startsWith('Unexpected end of JSON input') ? text.length : undefined
}

/** A problem of the text itself: located by line and column, no value to point at. */
function atOffset (offset: number, lines: LineCounter, message: string): Issue {
  const { line, col } = lines.linePos(offset)
  return { pointer: '', message, at: { line, column: col } }
}

/** Finds a pointer's node in the YAML reading of the text (JSON is YAML too): its key where it has one. */
export function locator (document: Document, lines: LineCounter): Locate {
  return (pointer) => {
    let node: unknown = document.contents
    let at: Node | undefined = node as Node | undefined
    for (const segment of pointer.split('/').slice(1).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment)
        if (pair === undefined) break
        at = pair.key as Node
        node = pair.value
      } else if (isSeq(node) && /^\d+$/.test(segment) && Number(segment) < node.items.length) {
        node = node.items[Number(segment)]
        at = node as Node
      } else {
        break
      }
    }
    const start = at?.range?.[0]
    if (start === undefined) return undefined
    const { line, col } = lines.linePos(start)
    return { line, column: col }
  }
}

/**
 * Ajv's errors as one issue each, where the value is and in the file's words: an unknown key is
 * pointed at, a missing one named, a tagged union's tag told its choices. The branches a schema's
 * `if` did not take, and ajv's summaries of failed branches, say nothing a branch's own errors do not.
 */
export function issuesOf (errors: readonly ErrorObject[]): Issue[] {
  // `propertyNames` repeats what its `pattern` error says, and `if` what its branch's errors say.
  return errors.filter((error) => error.keyword !== 'if' && error.keyword !== 'propertyNames').map((error) => {
    const at = error.instancePath
    const params = error.params as Record<string, any>
    switch (error.keyword) {
      case 'required':
        return { pointer: at, message: `must have "${String(params.missingProperty)}"` }
      case 'additionalProperties': {
        // Every closed object of the schema lists its properties.
        const known = Object.keys((error.parentSchema as { properties: object }).properties)
        return { pointer: `${at}/${String(params.additionalProperty)}`, message: `is not a key of this object; expected one of: ${known.join(', ')}` }
      }
      case 'discriminator': {
        const tags = ((error.parentSchema as { oneOf: Array<{ properties: Record<string, { const: string }> }> }).oneOf).map((branch) => JSON.stringify(branch.properties[params.tag].const))
        return { pointer: params.error === 'mapping' ? `${at}/${String(params.tag)}` : at, message: `"${String(params.tag)}" must be one of ${tags.join(', ')}${params.error === 'mapping' ? `; got ${JSON.stringify(params.tagValue)}` : ''}` }
      }
      case 'enum':
        return { pointer: at, message: `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}; got ${JSON.stringify(error.data)}` }
      case 'pattern':
        return error.propertyName === undefined
          ? { pointer: at, message: `must match ${String(params.pattern)}; got ${describe(error.data)}` }
          : { pointer: `${at}/${error.propertyName}`, message: `is not a name: a name matches ${String(params.pattern)}` }
      case 'const':
        return { pointer: at, message: `must be ${JSON.stringify(params.allowedValue)}; got ${JSON.stringify(error.data)}` }
      case 'not':
        // Each `not` of the schema says in its description what it forbids.
        return { pointer: at, message: String((error.schema as { description: string }).description) }
      case 'type':
        return { pointer: at, message: `must be ${String(params.type).split(',').map(article).join(' or ')}; got ${describe(error.data)}` }
      default:
        return { pointer: at, message: `${String(error.message)}; got ${describe(error.data)}` }
    }
  })
}

function article (type: string): string {
  return { object: 'an object', array: 'an array', integer: 'an integer', null: 'null' }[type] ?? `a ${type}`
}

function describe (value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object' && value !== null) return 'an object'
  return JSON.stringify(value)
}
