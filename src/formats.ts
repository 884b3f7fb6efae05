// The string formats the gateway's schemas use beyond JSON Schema's own, for every validator and
// serializer that reads them.

export const CUSTOM_FORMATS = {
  /** A decimal number as its string, e.g. "9.99": exact, unlike a JSON number. */
  decimal: /^-?\d+(?:\.\d+)?$/
} as const
