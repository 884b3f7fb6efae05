// The public API: the gateway plugin, the declaration language, the sources and the store. A
// resource of one's own is declared with these and mounted with `app.mount` (docs/your-own-resource.md).
// Nothing of the demo is here: the demo (demo/, routes/) is built from this module alone.

// What the gateway adds to Fastify (`app.mount`, `app.store`, `app.resources`, `request.principal`,
// ...), typed for a project importing this module: each plugin's `declare module 'fastify'` comes
// with it, in the declarations as in the code.
import '../plugins/audience.js'
import '../plugins/auth.js'
import '../plugins/drain.js'
import '../plugins/load-shedding.js'
import '../plugins/metrics.js'
import '../plugins/mount.js'
import '../plugins/redis.js'
import '../plugins/store.js'
import '../plugins/tracing.js'

// The gateway, as a Fastify plugin, and the process settings `npm start` uses.
export { default as gateway, type GatewayOptions } from './gateway.js'
export { loggerOptions, serverOptions } from './server.js'
export { boundHeapGrowth, configureHeap, turnOffPretenuring } from './heap.js'
export { loadConfig, ConfigError, type ApiKey, type Config } from './config.js'
export type { IdentitySettings, TrustedIssuer } from './identity/tokens.js'

// The gateway declared in one file: the app serving it, and the loader and compiler it runs.
export { default as declaredApp, type DeclaredAppOptions } from './declared-app.js'
export { compileDeclarations, DeclarationFileError, DeclarationFileSchema, loadDeclarationFile, type DeclarationFile, type LoadedFile } from './config-file/index.js'

// Declaring a record: fields, markings, choices, formatters, affordances.
export {
  choices, dateFormatter, declareRecord, Decimal, defineFormatter, formatted, handle, hidden, label, Marking, moneyFormatter, Nullable, numberFormatter, timestamp,
  type Affordance, type ChoiceOptions, type ChoicePairs, type Formatter, type FormatterOptions, type RecordDeclaration, type RowOf
} from './declare/index.js'

// Mounting it: who may call it, how agents page it, what refuses it.
export { scope, signedIn, unrestricted, type Permission, type Principal } from './permissions.js'
export type { ByteOptions, LineOptions, ListPaging, OffsetOptions, PageOptions } from './paging/index.js'
export { compileMount, MountError, type FilterKind, type Filters, type RowRule, type SortOptions, type ListMount, type BytesMount, type Mount, type Resource, type RetrieveMount, type TextMount } from './core/index.js'
export { problem, problemOf, type Problem, type ProblemCode } from './core/index.js'

// Acting: an action declared beside the reads, bound to the affordance it acts on, and what it acts with.
export { compileAction, DEFAULT_MAX_BODY_BYTES, type ActionContext, type ActionHooks, type ActionInput, type ActionMethod, type ActionMount, type ActionResource, type ActionTarget } from './core/action.js'
export { storeAction, type StoreActionOptions } from './sources/store-action.js'

// Where rows come from.
export {
  arrayRecordSource, arraySource, bufferContent, fileBytesSource, kyselyRecordSource, kyselySource, recordBytesSource, recordTextSource,
  type ByteContent, type ByteSource, type Condition, type ConditionOp, type KyselySourceOptions, type ListSource, type RecordSource, type Sort, type TextSource, type WindowRead, type WindowSource
} from './sources/index.js'
export {
  cursorPaging, DOT_SEGMENT, offsetPaging, pageLinkPaging, pathSegment, singlePaging, upstreamAction, upstreamClient, upstreamList, upstreamPath, upstreamRecord,
  type CursorPagingOptions, type FieldPaths, type OffsetPagingOptions, type PageLinkOptions, type UpstreamActionOptions, type UpstreamClient, type UpstreamFilters, type UpstreamListOptions, type UpstreamMethod,
  type UpstreamOptions, type UpstreamPaging, type UpstreamRecordOptions
} from './sources/upstream/index.js'
export { openStore, type GatewayDatabase, type OpenStoreOptions, type Store, type StoreKind } from './store/index.js'

// The two readers and their media types.
export { AGENT_MEDIA_TYPE, AUDIENCES, PLAIN_MEDIA_TYPE, PROBLEM_MEDIA_TYPE, type Audience } from './audience.js'
