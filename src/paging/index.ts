export { pageStyle, pageWindow, pageEnvelopeSchema, DEFAULT_PAGE_LIMIT, type PageWindow, type PageStyleOptions } from './page.js'
export type { PagingStyle, Window } from './style.js'
