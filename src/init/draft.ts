// A drafted declaration file and its YAML text. Every guess the drafting made, and everything it
// could not guess, is a note at the JSON pointer of the value it concerns; the text carries each note
// as a comment above that value's key, so the user reads the guess where it was made. Comments, not
// descriptions: a description would be published in the OpenAPI document.
import { Document, isMap, isScalar, isSeq, type Node, type YAMLMap } from 'yaml'
import type { DeclarationFile } from '../config-file/schema.js'

/** A declaration file drafted from what already describes the data, with what was guessed. */
export interface Draft {
  readonly declarations: DeclarationFile
  /** Each guess, or what could not be guessed, at the JSON pointer of the value it concerns ('' for the file). */
  readonly notes: ReadonlyArray<{ readonly pointer: string, readonly note: string }>
}

/** The widest a map is written on one line (`{ type: string, optional: true }`), indentation aside. */
const FLOW_WIDTH = 72

/** The draft as YAML text: a header comment (`header`, one or more lines), each note a `# ` comment above the key its pointer names. */
export function renderDraft (draft: Draft, header: string): string {
  const document = new Document(draft.declarations)
  // The file's top stays a block whatever its size: its keys carry notes.
  for (const { value } of (document.contents as YAMLMap<unknown, Node>).items) flowShortMaps(value as Node)
  const top: string[] = []
  for (const { pointer, note } of draft.notes) {
    const node = commentedNode(document, pointer)
    if (node === undefined) top.push(note)
    else node.commentBefore = [node.commentBefore, ...commentLines(note)].filter((line) => line !== undefined).join('\n')
  }
  document.commentBefore = [...header.split('\n'), ...(top.length > 0 ? ['', ...top] : [])].flatMap(commentLines).join('\n')
  return document.toString({ lineWidth: 0 })
}

/** Each line of `text` as a comment's line: `# ` before it, once written. */
function commentLines (text: string): string[] {
  return text.split('\n').map((line) => line === '' ? '' : ` ${line}`)
}

/**
 * The node a comment on `pointer` sits above: the key the pointer names, or its nearest ancestor
 * written on a line of its own (a key inside a one-line map cannot carry a comment above it).
 * Undefined for the file itself, or a pointer naming nothing.
 */
function commentedNode (document: Document, pointer: string): Node | undefined {
  let node: unknown = document.contents
  let above: Node | undefined
  for (const segment of pointer.split('/').slice(1).map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))) {
    const inFlow = (node as { flow?: boolean }).flow === true
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment)
      if (pair === undefined) return above
      if (!inFlow) above = pair.key as Node
      node = pair.value
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)] as Node | undefined
      if (item === undefined) return above
      if (!inFlow) above = item
      node = item
    } else {
      return above
    }
  }
  return above
}

/** Maps of scalars (or of such maps) short enough for one line are written on one. */
function flowShortMaps (node: Node): void {
  if (isSeq(node) || isMap(node)) {
    for (const item of node.items) flowShortMaps((isMap(node) ? (item as { value: Node }).value : item) as Node)
  }
  if (isMap(node) && node.items.every(({ value }) => isScalar(value) || ((isMap(value) || isSeq(value)) && value.flow === true)) && flatWidth(node) <= FLOW_WIDTH) {
    node.flow = true
  }
  if (isSeq(node) && node.items.every((item) => isScalar(item)) && flatWidth(node) <= FLOW_WIDTH) node.flow = true
}

/** About the width a collection takes on one line. */
function flatWidth (node: Node): number {
  return JSON.stringify(node.toJSON()).length
}

/** What a draft cannot be made from (a file that is not there, a document of another kind): said in one line. */
export class DraftError extends Error {
  override name = 'DraftError'
}
