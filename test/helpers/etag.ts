// ETags compared across two apps serving the same bytes. A buffered answer's strong ETag names its
// bytes, so the two must agree. A plain list's weak ETag names its store's version of the data and
// the statement that reads it: two stores, or two ways of writing one query, tag the same list
// apart, and each only has to be one.
import type { Test } from 'tap'

export const PLAIN_LIST_TAG = /^W\/"plain-[^"]+"$/

export function sameValidator (t: Pick<Test, 'equal' | 'match'>, actual: unknown, expected: unknown, what: string): void {
  if (typeof expected === 'string' && PLAIN_LIST_TAG.test(expected)) t.match(actual, PLAIN_LIST_TAG, `${what}: a plain list's weak ETag`)
  else t.equal(actual, expected, `${what}: the ETag`)
}
