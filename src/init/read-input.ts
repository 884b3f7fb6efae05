// The OpenAPI document a draft is made from: a file, or an http(s) URL fetched with Node's own
// fetch, bounded in time and size; JSON or YAML, told by its content. Each failure is one line.
import { readFile, stat } from 'node:fs/promises'
import { parseDocument } from 'yaml'
import { DraftError } from './draft.js'

export interface ReadLimits {
  /** The longest a URL may take to answer, body included (default 15 s). */
  readonly timeoutMs?: number
  /** The largest document read (default 10 MiB): a larger one is refused, never cut. */
  readonly maxBytes?: number
}

/** The document at `location` (a path, or an http(s) URL), parsed; throws a DraftError saying why not. */
export async function readDocument (location: string, limits: ReadLimits = {}): Promise<unknown> {
  const maxBytes = limits.maxBytes ?? 10 * 1024 * 1024
  const text = /^https?:\/\//i.test(location) ? await fetched(location, limits.timeoutMs ?? 15_000, maxBytes) : await read(location, maxBytes)
  return parsed(text)
}

async function read (path: string, maxBytes: number): Promise<string> {
  try {
    if ((await stat(path)).size > maxBytes) throw new DraftError(`is larger than ${maxBytes} bytes, more than any OpenAPI document needs.`)
    return await readFile(path, 'utf8')
  } catch (error) {
    if (error instanceof DraftError) throw error
    throw new DraftError(`cannot be read (${String((error as NodeJS.ErrnoException).code)}).`)
  }
}

async function fetched (url: string, timeoutMs: number, maxBytes: number): Promise<string> {
  let response: Response
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' } })
    if (!response.ok || response.body === null) throw new DraftError(`answered ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}, not the document.`)
    const chunks: Uint8Array[] = []
    let size = 0
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength
      if (size > maxBytes) throw new DraftError(`answered more than ${maxBytes} bytes, more than any OpenAPI document needs.`)
      chunks.push(chunk)
    }
    return Buffer.concat(chunks).toString('utf8')
  } catch (error) {
    if (error instanceof DraftError) throw error
    const cause = signal.aborted ? `no answer within ${timeoutMs} ms` : String(((error as Error).cause as Error | undefined)?.message ?? (error as Error).message)
    throw new DraftError(`cannot be fetched: ${cause}.`)
  }
}

/** JSON when it reads as JSON (an object's brace first), YAML otherwise. */
function parsed (source: string): unknown {
  const text = source.replace(/^\uFEFF/, '')
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text)
    } catch (error) {
      throw new DraftError(`is not JSON: ${(error as Error).message}.`)
    }
  }
  const document = parseDocument(text)
  if (document.errors.length > 0) throw new DraftError(`is neither JSON nor YAML: ${document.errors[0].message.split('\n')[0]}.`)
  try {
    return document.toJS()
  } catch (error) {
    // The yaml package refuses aliases that would expand a small text into a huge value.
    throw new DraftError(`cannot be read as YAML: ${(error as Error).message}.`)
  }
}
