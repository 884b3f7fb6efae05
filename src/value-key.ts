// One string that names a computation by what it is computed from: a text (a query's SQL, a data
// version) and the values it is computed with. Two keys are equal only when both parts are: the
// values are compared as JSON, with a bigint told apart from the string of its digits.

/** The key of `text` computed with `values`. */
export function valueKey (text: string, values: readonly unknown[]): string {
  return `${text}\n${JSON.stringify(values, bigintsTagged)}`
}

/** JSON has no bigint: tagged, so `5n` and `"5"` never share a key. */
function bigintsTagged (_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? { bigint: value.toString() } : value
}
