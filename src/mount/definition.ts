// What a route declares to be mounted: a record declaration, where its rows come from, its
// closed arguments, who may call it and how an agent pages it.
import type { TObject } from 'typebox'
import type { Marking, RecordDeclaration } from '../declare/index.js'
import type { Permission } from '../permissions.js'
import type { ListSource, RecordSource } from '../sources/index.js'

export interface PageOptions {
  readonly style: 'page'
  /** The ceiling on `limit` (default 100); two mounts of one declaration may differ. */
  readonly maxPageSize?: number
  readonly defaultLimit?: number
}

interface MountBase {
  /** The operation's name: its OpenAPI operationId and how refusals name the mount. */
  readonly name: string
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly declaration: RecordDeclaration<any> // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The closed set of query arguments; anything else is refused. */
  readonly arguments?: TObject
  /** Every check must allow the caller; a route with none is refused (use `unrestricted`). */
  readonly permissions: readonly Permission[]
  /** Markings replaced for this mount only, by top-level field name. */
  readonly overrides?: Readonly<Record<string, Marking>>
}

export interface ListMount<Args = any, Row = any> extends MountBase { // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly kind: 'list'
  readonly source: ListSource<Args, Row>
  readonly paging?: PageOptions
}

export interface RetrieveMount<Args = any, Row = any> extends MountBase { // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly kind: 'retrieve'
  readonly source: RecordSource<Args, Row>
  /** The path parameters naming the record (e.g. `{ id }`). */
  readonly params: TObject
}

export type Mount = ListMount | RetrieveMount

/** What the gateway decides for every mount: how timestamps read, what a handle says. */
export interface MountSettings {
  readonly timeZone: string
  readonly handleDescription?: string
}

export class MountError extends Error {
  override name = 'MountError'
}
