// A request's URL as its path alone: what routes, CORS allowances and spans are matched or named by.

/** `/books?limit=2` -> `/books`. */
export function pathOf (url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}
