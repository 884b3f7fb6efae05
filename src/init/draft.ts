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
  // Every value written out where it is: a draft is read and edited, and an alias (`*a1`) would tie two places together.
  const document = new Document(draft.declarations, { aliasDuplicateObjects: false })
  // A note sits above its key, or above the one-line map holding it: the maps around that stay
  // blocks, as do the file's top and its sections (records, sources, ...) unless empty.
  const top = document.contents as YAMLMap<unknown, Node>
  const sections = top.items.map(({ value }) => value as Node).filter((value) => (value as YAMLMap).items.length > 0)
  const blocks = new Set([top, ...sections, ...draft.notes.flatMap(({ pointer }) => walk(document, pointer).slice(0, -1).map(({ node }) => node))])
  flowShortMaps(top, blocks)
  const onFile: string[] = []
  for (const { pointer, note } of draft.notes) {
    const node = commentedNode(walk(document, pointer))
    if (node === undefined) onFile.push(note)
    else node.commentBefore = [node.commentBefore, ...commentLines(note)].filter((line) => line !== undefined).join('\n')
  }
  document.commentBefore = [...header.split('\n'), ...(onFile.length > 0 ? ['', ...onFile] : [])].flatMap(commentLines).join('\n')
  return document.toString({ lineWidth: 0 })
}

/** Each line of `text` as a comment's line: `# ` before it, once written. */
function commentLines (text: string): string[] {
  return text.split('\n').map((line) => line === '' ? '' : ` ${line}`)
}

/** The collections a pointer passes through, outermost first, each with the key or item it goes on to; as far as it leads. */
function walk (document: Document, pointer: string): Array<{ node: Node, key: Node }> {
  const path: Array<{ node: Node, key: Node }> = []
  let node: unknown = document.contents
  for (const segment of pointer.split('/').slice(1).map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))) {
    const next = isMap(node)
      ? node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment)
      : isSeq(node) ? node.items[Number(segment)] : undefined
    if (next === undefined) break
    const key = (isMap(node) ? (next as { key: Node }).key : next) as Node
    path.push({ node: node as Node, key })
    node = isMap(node) ? (next as { value: unknown }).value : next
  }
  return path
}

/**
 * The node a comment sits above, given the pointer's walk: the key it names, or its nearest
 * ancestor written on a line of its own (a key inside a one-line map cannot carry a comment above
 * it). Undefined for the file itself.
 */
function commentedNode (path: ReadonlyArray<{ node: Node, key: Node }>): Node | undefined {
  return path.findLast(({ node }) => (node as { flow?: boolean }).flow !== true)?.key
}

/** Maps of scalars (or of such maps) short enough for one line are written on one, but those in `blocks`. */
function flowShortMaps (node: Node, blocks: ReadonlySet<Node>): void {
  if (isSeq(node) || isMap(node)) {
    for (const item of node.items) flowShortMaps((isMap(node) ? (item as { value: Node }).value : item) as Node, blocks)
  }
  if (blocks.has(node)) return
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
