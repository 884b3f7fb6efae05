// Upstream HTTP APIs as sources: the client (pool, deadline, retries, breaker, cap), the paging
// adapters, and the list and record sources built on them.
export { upstreamClient, type UpstreamClient, type UpstreamMethod, type UpstreamObserver, type UpstreamOptions, type UpstreamOutcome, type UpstreamResponse, type UpstreamSendOptions } from './client.js'
export { cursorPaging, offsetPaging, pageLinkPaging, singlePaging, type CursorPagingOptions, type OffsetPagingOptions, type PageLinkOptions, type UpstreamPaging } from './paging.js'
export { DEFAULT_MAX_ROWS, UPSTREAM_PROBLEMS, upstreamList, upstreamRecord, type UpstreamFilters, type UpstreamListOptions, type UpstreamRecordOptions } from './source.js'
export { DOT_SEGMENT, pathSegment, upstreamPath } from './path.js'
export type { FieldPaths } from './rows.js'
export { upstreamAction, type UpstreamActionOptions } from './action.js'
