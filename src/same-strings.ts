// Whether two lists of names are the same, in the same order: how a compiled function's names are
// known to be the ones it was written for (a statement's row maker, a list's projector).

export function sameStrings (a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
