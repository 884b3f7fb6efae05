// The flow of a byte mount: the content found (or the 404), then to a plain client the content
// itself, for its transport to send whole or by range; to an agent one window of bytes.
import type { ByteWindowing } from '../paging/index.js'
import type { ByteContent, ByteSource } from '../sources/index.js'
import type { CheckedArguments } from './arguments.js'
import { problem } from './errors.js'
import type { Call } from './serve.js'

export interface BytesPlan {
  readonly check: (call: Call) => CheckedArguments
  readonly source: ByteSource<any>
  readonly windowing: ByteWindowing
  readonly mediaType: string
  /** Whether an agent is served the bytes as text (a UTF-8 `text/*` media type). */
  readonly text: boolean
  /** The route's path template (`/books/:id/cover`), to name missing content. */
  readonly url: string
}

/** To a plain client: the content, read by its transport (whole, or the range a request asks for). */
export interface ServedBytes {
  readonly kind: 'bytes'
  readonly body: ByteContent
  readonly mediaType: string
}

export async function serveBytes (plan: BytesPlan, call: Call): Promise<ServedBytes | { readonly kind: 'json', readonly body: unknown }> {
  // Checked before anything is read: a plain client's request is wrong whatever the content.
  const { paging, args, params } = plan.check(call)
  const content = await plan.source.open({ ...args, ...params })
  if (content === undefined) throw problem('AG_NOT_FOUND', `No content at ${pathOf(plan.url, params)}.`)
  if (call.audience === 'plain') return { kind: 'bytes', body: content, mediaType: plan.mediaType }
  const window = plan.windowing.window(paging, content.length)
  const bytes = window.end > window.start ? await content.read(window.start, window.end) : new Uint8Array(0)
  return { kind: 'json', body: plan.windowing.envelope(bytes, window, plan.text) }
}

/** `/books/:id/cover` with `{ id: 9 }` -> `/books/9/cover`. */
export function pathOf (url: string, params: Readonly<Record<string, unknown>>): string {
  return url.replace(/:(\w+)/g, (_template, name: string) => String(params[name]))
}
