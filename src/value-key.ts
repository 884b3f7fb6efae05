// One string that names a computation by what it is computed from: a text (a query's SQL, a data
// version) and the values it is computed with. Two keys are equal only when both parts are: the
// values are compared as JSON, with a bigint told apart from the string of its digits.

/** The key of `text` computed with `values`. */
export function valueKey (text: string, values: readonly unknown[]): string {
  return `${text}\n${json(values)}`
}

/**
 * `values` as JSON. A request names a few computations by key, nearly always without a bigint, and
 * JSON.stringify with a replacer costs three times as much as without: so without first. A bigint
 * that reaches JSON.stringify as a bigint throws, and only then are the values written again, tagged.
 */
function json (values: readonly unknown[]): string {
  try {
    return JSON.stringify(values)
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
    return JSON.stringify(values, bigintsTagged)
  }
}

/** JSON has no bigint: tagged, so `5n` and `"5"` never share a key. */
function bigintsTagged (_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? { bigint: value.toString() } : value
}
