// A request's URL as its path alone: what routes, CORS allowances and spans are matched or named by.

/** A route's path template (`/books/:id/text`) as a pattern of whole paths; `*` matches the rest. */
export function pathPattern (url: string): RegExp {
  const segments = url.split('/').map((segment) => segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${segments.join('/')}$`)
}

/** `/books?limit=2` -> `/books`. */
export function pathOf (url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}
