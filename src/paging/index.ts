// Paging: one module per style, each owning its options, names, defaults, clamp and envelope.
import { lineStyle, type LineOptions } from './lines.js'
import { offsetStyle, type OffsetOptions } from './offset.js'
import { pageStyle, type PageOptions } from './page.js'
import type { PagingStyle } from './style.js'

export { pageStyle, pageWindow, pageEnvelope, pageEnvelopeSchema, PAGE_DEFAULTS, type PageOptions, type PageWindow } from './page.js'
export { offsetStyle, offsetWindow, offsetEnvelope, offsetEnvelopeSchema, OFFSET_DEFAULTS, type OffsetOptions, type OffsetLimits, type OffsetState, type OffsetWindow } from './offset.js'
export { lineStyle, lineWindow, lineEnvelope, lineEnvelopeSchema, LINE_DEFAULTS, type LineOptions, type LineState, type LineWindow } from './lines.js'
export { byteWindowing, byteWindow, byteEnvelope, isUtf8Text, BYTE_DEFAULTS, BYTE_WINDOW_SCHEMA, MIN_WINDOW_BYTES, type ByteOptions, type ByteWindow, type ByteWindowing } from './bytes.js'
export type { PagingStyle, UncountedPaging, Window } from './style.js'

/** How a list is paged for agents: the page style unless the mount says otherwise. */
export type ListPaging = PageOptions | OffsetOptions

/** The style its options name, built (and its options checked) once, where a mount is registered. */
export function pagingStyle (options: ListPaging | LineOptions = { style: 'page' }): PagingStyle {
  switch (options.style) {
    case 'page': return pageStyle(options)
    case 'offset': return offsetStyle(options)
    case 'lines': return lineStyle(options)
  }
}
