// What a route declares to be mounted: a record declaration (or a text, or bytes), where its rows come from,
// its closed arguments, who may call it and how an agent pages it. A mount is generic over its row
// type, so a source whose rows do not match the declared record does not compile.
import type { TObject } from 'typebox'
import type { Marking, RecordDeclaration } from '../declare/index.js'
import type { ActSettings } from './act.js'
import type { Filters } from './filters.js'
import type { RowRule } from './row-rule.js'
import type { ServedCache } from './served-cache.js'
import type { SortOptions } from './sort.js'
import type { Validators } from './validators.js'
import type { ByteOptions, LineOptions, ListPaging } from '../paging/index.js'
import type { Permission } from '../permissions.js'
import type { ByteSource, ListSource, RecordSource, TextSource, WindowSource } from '../sources/index.js'

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

interface RecordMountBase<Row> extends MountBase {
  readonly declaration: RecordDeclaration<Row>
  /** Markings replaced for this mount only, by top-level field name. */
  readonly overrides?: Readonly<Record<string, Marking>>
  /**
   * The base of this mount's agent component names in OpenAPI (`<schemaName>ForAgents`,
   * `<schemaName>Page`); default the declaration's name. Set it when `overrides` make the agent
   * item differ from another mount's: one name never describes two schemas.
   */
  readonly schemaName?: string
  /**
   * Which rows each caller may read: `{ tenant_id: { claim: 'org_id' } }` serves only the rows whose
   * `tenant_id` is the caller's `org_id` claim (a token's, or one configured with its key), applied
   * by the source before counting; never an argument, and a caller without the claim is refused.
   */
  readonly rowRule?: RowRule
}

/** A list: a bare array to a plain client, a page in an envelope to an agent. */
export interface ListMount<Args = any, Row = any> extends RecordMountBase<Row> {
  readonly kind: 'list'
  /** Counted then sliced (a store's), or read a window at a time (an upstream API's). */
  readonly source: ListSource<Args, Row> | WindowSource<Args, Row>
  /** How an agent pages the list (default: the page style). */
  readonly paging?: ListPaging
  /**
   * Filters on top-level fields agents are shown, applied by the source before counting:
   * `{ status: 'equals', posted_at: 'range', number: 'prefix' }` takes the arguments `status`,
   * `posted_at_min`, `posted_at_max` and `number_prefix`, closed and published like the others.
   */
  readonly filters?: Filters
  /**
   * The fields a caller may order the list by (top-level scalars agents are shown), and the order
   * served when none is sent: `{ fields: ['title', 'published_at'], default: '-published_at' }` takes
   * the argument `sort`, one of `title`, `-title`, `published_at`, `-published_at`; the source
   * orders by the field, then by its own order key.
   */
  readonly sort?: SortOptions
}

/** One record, named by its path parameters. */
export interface RetrieveMount<Args = any, Row = any> extends RecordMountBase<Row> {
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

/**
 * Bytes (an image, a file, an export): whole or by HTTP range to a plain client, in its own media
 * type; a window of bytes to an agent (text as text, anything else as base64).
 */
export interface BytesMount<Args = any> extends MountBase {
  readonly kind: 'bytes'
  readonly source: ByteSource<Args>
  /** The content's media type (`image/png`, `text/csv`), as a plain client is served it. */
  readonly mediaType: string
  /** The path parameters naming the content (e.g. `{ id }`), if any. */
  readonly params?: TObject
  readonly paging?: ByteOptions
}

export type Mount<Args = any, Row = any> = ListMount<Args, Row> | RetrieveMount<Args, Row> | TextMount<Args> | BytesMount<Args>

/** What the gateway decides for every mount: how timestamps read, what a handle says, where answers are kept, what compiles its checks. */
export interface MountSettings {
  readonly timeZone: string
  readonly handleDescription?: string
  /** Where lists' answers are kept while their data is unchanged (served-cache.ts); absent, none are. */
  readonly responses?: ServedCache
  /** The app's checks (validators.ts), which compile the mount's arguments check; absent, the mount has a set of its own. */
  readonly validators?: Validators
  /** Where actions' Idempotency-Keys are kept and who is told their outcomes (act.ts); an action needs it. */
  readonly acting?: ActSettings
}

export class MountError extends Error {
  override name = 'MountError'
  /** Where in the mount the refused value is, as a JSON pointer (`/sort/fields/0`), when it is one. */
  readonly at?: string

  constructor (message: string, options: { readonly at?: string } = {}) {
    super(message)
    if (options.at !== undefined) this.at = options.at
  }
}
