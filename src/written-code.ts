// Functions written once as code where a loop reading or setting names one by one would cost a
// V8 megamorphic access for every name (a statement's row maker, a list's projector, a
// declaration's null check). Each name in such code is written by `literal`, as JSON writes a
// string: JavaScript reads that as the same string, whatever the name holds (JSON's strings are
// JavaScript's since ES2019, U+2028 and U+2029 included, and JSON.stringify escapes a lone
// surrogate). So nothing a declaration or a database names is ever read as code.

/** `name` as a JavaScript string literal that reads back as `name`. */
export function literal (name: string): string {
  return JSON.stringify(name)
}

/** A function of `params` whose body is `body`, every name in it written by `literal`. */
export function writtenFunction<F> (params: readonly string[], body: string): F {
  // eslint-disable-next-line no-new-func -- every name in the body is a literal (above), never code.
  return new Function(...params, body) as F
}

/**
 * Whether two lists of names are the same, in the same order: how a function written for some names
 * (a statement's row maker, a list's projector) is known to fit the names met now.
 */
export function sameStrings (a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
