// How an upstream pages a list, guessed from what its OpenAPI document says of the operation: its
// query parameters, its response's headers, and the fields beside the rows. Each guess is written
// in a note; a style that needs what the document does not say falls back to one response, said too.
import type { UpstreamPagingDeclaration } from '../config-file/schema.js'
import type { Json, Note } from './openapi-refs.js'

/** What the document says of a list operation. */
export interface ListOperation {
  /** Its query parameters' schemas, by name. */
  readonly query: ReadonlyMap<string, Json>
  /** The headers its response documents. */
  readonly headers: readonly string[]
  /** The fields of the object holding the rows, when the body is not the array itself; `items` is the one holding them. */
  readonly body?: { readonly items: string, readonly fields: Readonly<Record<string, Json>> }
}

const PAGE = ['page', 'page_number', 'pageNumber']
const PER_PAGE = ['per_page', 'perPage', 'page_size', 'pageSize', 'limit', 'size']
const OFFSET = ['offset', 'skip', 'start']
const LIMIT = ['limit', 'count', 'take', 'size', 'max', 'page_size', 'pageSize', 'per_page']
const CURSOR = ['cursor', 'after', 'page_token', 'pageToken', 'starting_after', 'next_token', 'nextToken', 'continuation_token', 'continuationToken', 'page_cursor']
const NEXT = ['next_cursor', 'nextCursor', 'next_page_token', 'nextPageToken', 'next_token', 'nextToken', 'continuation_token', 'continuationToken', 'end_cursor', 'endCursor', 'cursor', 'next']
const TOTAL = ['total', 'total_count', 'totalCount', 'total_results', 'totalResults', 'total_items', 'totalItems', 'count']

/** The paging style of a list source at `at`, with a note for each guess and each thing it could not tell. */
export function guessPaging (operation: ListOperation, at: string, notes: Note[]): UpstreamPagingDeclaration {
  const say = (note: string): void => { notes.push({ pointer: at, note }) }
  const param = (names: readonly string[]): string | undefined => named(names, [...operation.query.keys()])
  const items = operation.body === undefined ? {} : { items: operation.body.items }
  const [cursor, page, offset] = [param(CURSOR), param(PAGE), param(OFFSET)]
  if (cursor !== undefined) {
    const next = operation.body === undefined ? undefined : named(NEXT, Object.keys(operation.body.fields).filter((field) => typeOf(operation.body?.fields[field]) === 'string'))
    if (next !== undefined) {
      const limit = param(LIMIT)
      say(`paging guessed: a cursor, sent as "${cursor}", the next one read from the body's "${next}"${sizeNote(limit)}.`)
      return { style: 'cursor', cursor, ...(limit === undefined ? {} : { limit }), ...pageSize(operation, limit), ...items, next }
    }
    say(`the operation takes a cursor ("${cursor}"), but its response documents no field holding the next one: read as one response (the first page only); say the cursor's field as paging "next" with style "cursor".`)
  } else if (page !== undefined) {
    const perPage = param(PER_PAGE)
    const link = operation.headers.some((header) => header.toLowerCase() === 'link')
    if (operation.body === undefined) {
      say(`paging guessed: numbered pages ("${page}")${sizeNote(perPage)}, the next page named by a Link header${link ? '' : ', which the document does not list: without one only the first page is read'}.`)
      const schema = operation.query.get(page)
      const firstPage = schema?.minimum === 0 || schema?.default === 0 ? { firstPage: 0 } : {}
      return { style: 'page-link', page, ...firstPage, ...(perPage === undefined ? {} : { perPage }), ...pageSize(operation, perPage) }
    }
    say(`the operation pages by number ("${page}"), but the rows are in a field of the body: the page-link style reads a body that is the array, so it is read as one response (the first page only).`)
  } else if (offset !== undefined) {
    const limit = param(LIMIT)
    const header = operation.headers.find((name) => /^x-total-count$/i.test(name)) ?? operation.headers.find((name) => /total/i.test(name))
    const field = operation.body === undefined ? undefined : named(TOTAL, Object.keys(operation.body.fields).filter((name) => typeOf(operation.body?.fields[name]) === 'integer'))
    if (header !== undefined || field !== undefined) {
      say(`paging guessed: offset ("${offset}") and limit${sizeNote(limit)}, the total read from ${header === undefined ? `the body's "${field}"` : `the ${header} header`}.`)
      return { style: 'offset', offset, ...(limit === undefined ? {} : { limit }), ...pageSize(operation, limit), total: header === undefined ? { field: field as string } : { header }, ...items }
    }
    say(`the operation pages by offset ("${offset}"), but documents no total (a header or a field): read as one response (the first page only); say where the total is with style "offset".`)
  } else {
    say('paging guessed: none (the operation takes no page, offset or cursor parameter): the whole list is read in one response.')
  }
  return { style: 'single', ...items }
}

/** The first of `candidates` among `names`, as `names` spells it (case aside). */
function named (candidates: readonly string[], names: readonly string[]): string | undefined {
  for (const candidate of candidates) {
    const found = names.find((name) => name.toLowerCase() === candidate.toLowerCase())
    if (found !== undefined) return found
  }
  return undefined
}

/** The rows asked a page: the size parameter's maximum, when the document gives one. */
function pageSize (operation: ListOperation, parameter: string | undefined): { pageSize?: number } {
  const maximum = parameter === undefined ? undefined : operation.query.get(parameter)?.maximum
  return typeof maximum === 'number' && Number.isSafeInteger(maximum) && maximum >= 1 ? { pageSize: maximum } : {}
}

function sizeNote (parameter: string | undefined): string {
  return parameter === undefined ? ' (the document names no page size parameter: the style\'s own is sent)' : ` ("${parameter}", as many rows as its maximum allows, else the style's default)`
}

function typeOf (schema: Json | undefined): unknown {
  const type = schema?.type
  return Array.isArray(type) ? type.find((name) => name !== 'null') : type
}
