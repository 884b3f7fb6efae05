// What a route declares to be mounted: a record declaration (or a text), where its rows come
// from, its closed arguments, who may call it and how an agent pages it.
import type { TObject } from 'typebox'
import type { Marking, RecordDeclaration } from '../declare/index.js'
import type { Permission } from '../permissions.js'
import type { ListSource, RecordSource, TextSource } from '../sources/index.js'

export interface PageOptions {
  readonly style: 'page'
  /** The ceiling on `limit` (default 100); two mounts of one declaration may differ. */
  readonly maxPageSize?: number
  readonly defaultLimit?: number
}

export interface OffsetOptions {
  readonly style: 'offset'
  /** The noun the items are counted in: `entries` publishes `total_entries`. */
  readonly unit: string
  /** The ceiling on `limit` (default 100): more is served at it and disclosed. */
  readonly maxLimit?: number
  /** The limit when none is sent (default 50). */
  readonly defaultLimit?: number
}

export interface LineOptions {
  readonly style: 'lines'
  /** The ceiling on a window's width, in lines (default 200). */
  readonly maxLines?: number
}

interface MountBase {
  /** The operation's name: its OpenAPI operationId and how refusals name the mount. */
  readonly name: string
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tags?: readonly string[]
  /** The closed set of query arguments; anything else is refused. */
  readonly arguments?: TObject
  /** Every check must allow the caller; a route with none is refused (use `unrestricted`). */
  readonly permissions: readonly Permission[]
}

interface RecordMountBase extends MountBase {
  readonly declaration: RecordDeclaration<any>
  /** Markings replaced for this mount only, by top-level field name. */
  readonly overrides?: Readonly<Record<string, Marking>>
  /**
   * The base of this mount's agent component names in OpenAPI (`<schemaName>ForAgents`,
   * `<schemaName>Page`); default the declaration's name. Set it when `overrides` make the agent
   * item differ from another mount's: one name never describes two schemas.
   */
  readonly schemaName?: string
}

export interface ListMount<Args = any, Row = any> extends RecordMountBase {
  readonly kind: 'list'
  readonly source: ListSource<Args, Row>
  /** How an agent pages the list (default: the page style). */
  readonly paging?: PageOptions | OffsetOptions
}

export interface RetrieveMount<Args = any, Row = any> extends RecordMountBase {
  readonly kind: 'retrieve'
  readonly source: RecordSource<Args, Row>
  /** The path parameters naming the record (e.g. `{ id }`). */
  readonly params: TObject
}

/** A text resource: whole as text/plain to a plain client, a window of lines to an agent. */
export interface TextMount<Args = any> extends MountBase {
  readonly kind: 'text'
  readonly source: TextSource<Args>
  /** The path parameters naming the text (e.g. `{ id }`), if any. */
  readonly params?: TObject
  readonly paging?: LineOptions
}

export type Mount = ListMount | RetrieveMount | TextMount

/** What the gateway decides for every mount: how timestamps read, what a handle says. */
export interface MountSettings {
  readonly timeZone: string
  readonly handleDescription?: string
}

export class MountError extends Error {
  override name = 'MountError'
}
