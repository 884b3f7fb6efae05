// The one upstream an OpenAPI document describes: its origin from the first server (or a variable
// the user sets), and the credentials its security schemes ask for as headers read from variables.
// Nothing secret is ever written: every credential is a `${NAME}` the environment fills.
import type { UpstreamDeclaration } from '../config-file/schema.js'
import { variable } from './guesses.js'
import { objectOf, resolve, textOf, type Json, type Note } from './openapi-refs.js'
import { segment } from './openapi-fields.js'

/** The upstream, and the path its servers' URL puts before every operation's (`/v1`). */
export interface DraftedUpstream {
  readonly upstream: UpstreamDeclaration
  readonly basePath: string
}

/** The upstream `name` at `at`, from the document's first server and the security `schemes` its operations ask for. */
export function upstreamOf (document: Json, name: string, schemes: ReadonlySet<string>, at: string, notes: Note[]): DraftedUpstream {
  const server = objectOf(Array.isArray(document.servers) ? document.servers[0] : undefined)
  const written = textOf(server?.url)
  const url = written === undefined ? undefined : withDefaults(written, objectOf(server?.variables), `${at}/origin`, notes)
  const absolute = url === undefined ? undefined : URL.parse(url)
  const basePath = (absolute === null || absolute === undefined ? (url?.startsWith('/') === true ? url : '') : absolute.pathname).replace(/\/+$/, '')
  const headers = headersOf(document, name, schemes, `${at}/headers`, notes)
  if (absolute !== null && absolute !== undefined && /^https?:$/.test(absolute.protocol)) {
    notes.push({ pointer: `${at}/origin`, note: `origin: the document's first server (${url as string})${basePath === '' ? '' : `; its path ${basePath} begins every source's path`}.` })
    return { upstream: { origin: absolute.origin, ...headers }, basePath }
  }
  const origin = variable(name, 'url')
  notes.push({ pointer: `${at}/origin`, note: `origin: the document names no absolute http(s) server${url === undefined ? '' : ` (its first is ${url})`}: set ${origin} to the upstream's scheme, host and port${basePath === '' ? '' : `; ${basePath} begins every source's path`}.` })
  return { upstream: { origin: `\${${origin}}`, ...headers }, basePath }
}

/** The security schemes an operation asks for: its own requirement, else the document's; the first alternative. */
export function schemesOf (operation: Json, document: Json): string[] {
  const requirements = Array.isArray(operation.security) ? operation.security : Array.isArray(document.security) ? document.security : []
  return Object.keys(objectOf(requirements[0]) ?? {})
}

/** `{name}` in a server URL replaced by its variable's default, said in a note. */
function withDefaults (url: string, variables: Json | undefined, at: string, notes: Note[]): string {
  if (!/\{[^}]*\}/.test(url)) return url
  const filled = url.replace(/\{([^}]*)\}/g, (whole, name: string) => textOf(objectOf(variables?.[name])?.default) ?? whole)
  notes.push({ pointer: at, note: `the first server's URL ${url} is read with its variables' defaults: ${filled}.` })
  return filled
}

/** The headers carrying the credentials `schemes` ask for, each a variable; a scheme no header can carry is said. */
function headersOf (document: Json, name: string, schemes: ReadonlySet<string>, at: string, notes: Note[]): { headers?: Record<string, string> } {
  const headers: Record<string, string> = {}
  const declared = objectOf(objectOf(document.components)?.securitySchemes)
  for (const scheme of schemes) {
    const value = resolve(document, declared?.[scheme], `security scheme ${scheme}`, notes)?.value
    const type = textOf(value?.type)
    const secret = variable(name, scheme)
    const say = (header: string, text: string): void => { notes.push({ pointer: `${at}/${segment(header)}`, note: text }) }
    if (type === 'apiKey' && value?.in === 'header' && typeof value.name === 'string') {
      headers[value.name] = `\${${secret}}`
      say(value.name, `security scheme ${scheme}: the key is read from ${secret}; it is never written here.`)
    } else if (type === 'http' && textOf(value?.scheme)?.toLowerCase() === 'basic') {
      headers.authorization = `Basic \${${secret}}`
      say('authorization', `security scheme ${scheme}: ${secret} holds user:password in base64; it is never written here.`)
    } else if (type === 'http' || type === 'oauth2' || type === 'openIdConnect') {
      headers.authorization = `Bearer \${${secret}}`
      say('authorization', `security scheme ${scheme} (${type}${type === 'http' ? ` ${String(value?.scheme)}` : ''}): the token is read from ${secret}${type === 'http' ? '' : ', obtained beforehand: the gateway does not fetch or refresh it'}; it is never written here.`)
    } else {
      notes.push({ pointer: at.replace(/\/headers$/, ''), note: `security scheme ${scheme} (${type ?? 'unknown'}${value?.in === undefined ? '' : ` in ${String(value.in)}`}) cannot be sent as a header: the gateway sends only headers; calls may be refused until it is.` })
    }
  }
  return Object.keys(headers).length === 0 ? {} : { headers }
}
