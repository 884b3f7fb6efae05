// The string formats the gateway's schemas use beyond JSON Schema's own, for every validator and
// serializer that reads them.

/**
 * A decimal number as its string: an optional minus, digits, then optionally a point and digits
 * (`9.99`, `-1`, `10`). Published beside `format: decimal` as a `pattern`, which every JSON Schema
 * validator checks, as most do not know the format. ASCII digits spelt out (`\d` is any Unicode
 * digit in some regular expression engines) and a plain group, for engines other than JavaScript's.
 */
export const DECIMAL_PATTERN = '^-?[0-9]+(\\.[0-9]+)?$'

export const CUSTOM_FORMATS = {
  /** A decimal number as its string, e.g. "9.99": exact, unlike a JSON number. */
  decimal: new RegExp(DECIMAL_PATTERN)
} as const
