// An upstream path with the caller's arguments in it. Each `{name}` is filled with its argument,
// percent-encoded so that it stays one segment. A dot segment (`.` or `..`, however it was sent:
// the router has already decoded `%2e`) is refused, naming the argument: a URL resolves it away, so
// `/item/{a}/x` with `a` = `..` would read `/x`, outside the declared path, with the gateway's
// credentials.
import { invalidArguments } from '../../core/errors.js'

/** Why a path parameter's value was refused. */
export const DOT_SEGMENT = 'Must not be "." or "..": a path parameter is one segment of a path, and these would climb out of it.'

/** `value` as one path segment, or a refusal naming `name` when it is a dot segment. */
export function pathSegment (name: string, value: unknown): string {
  const text = String(value)
  if (text === '.' || text === '..') throw invalidArguments({ [name]: [DOT_SEGMENT] })
  return encodeURIComponent(text)
}

/** The path `template` (`/item/{id}/detail`) filled with a call's arguments, each one segment. */
export function upstreamPath (template: string): (args: Readonly<Record<string, unknown>>) => string {
  return (args) => template.replace(/\{([^}]*)\}/g, (_, name: string) => pathSegment(name, args[name]))
}
