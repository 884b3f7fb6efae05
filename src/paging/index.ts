export { pageStyle, pageWindow, DEFAULT_PAGE_LIMIT, type PageWindow, type PageStyleOptions } from './page.js'
export { offsetStyle, offsetWindow, DEFAULT_OFFSET_LIMIT, DEFAULT_MAX_LIMIT, type OffsetWindow, type OffsetStyleOptions } from './offset.js'
export { lineStyle, lineWindow, DEFAULT_MAX_LINES, type LineWindow, type LineStyleOptions } from './lines.js'
export {
  pageEnvelope, pageEnvelopeSchema, offsetEnvelope, offsetEnvelopeSchema, lineEnvelope, lineEnvelopeSchema,
  type PageState, type OffsetState, type LineState
} from './envelope.js'
export type { PagingStyle, Window } from './style.js'
