// Every use of luxon lives here: pure functions, "now" is always a parameter.
import { DateTime, IANAZone, Info, type Zone } from 'luxon'

/** Month names and AM/PM are English whatever the machine's locale. */
const LOCALE = 'en-US'

/** ISO 8601 date or date-time, as stored or presented: `2026-01-31`, `2026-01-31T13:05:09Z`. */
const ISO_SHAPE = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/

/** The moment every timestamp example is rendered from: day 31 and hour 14 are unambiguous. */
export const EXAMPLE_MOMENT = { year: 2026, month: 1, day: 31, hour: 14, minute: 5, second: 9 } as const

export class InvalidDateError extends Error {
  constructor (readonly value: string, reason: string) {
    super(`Not a real date-time: ${JSON.stringify(value)} (${reason}).`)
    this.name = 'InvalidDateError'
  }
}

/** True when `zone` names an IANA time zone luxon can use. */
export function isTimeZone (zone: string): boolean {
  return IANAZone.isValidZone(zone)
}

/**
 * Renders a date-time in `zone` with luxon format tokens. A string with an offset (or `Z`) and a
 * `Date` are instants; a string without one is wall time in `zone`; a bare date is midnight there,
 * so it never shifts day. Anything that is not a date-time is returned as it is; an impossible
 * date (`2026-02-30`) throws, because serving garbage silently is worse than failing.
 */
export function formatDateTime (value: unknown, format: string, zone: string): unknown {
  return dateTimeRenderer(format, zone)(value)
}

/**
 * `formatDateTime` for one format and zone, the zone resolved once: a formatter renders every row
 * of every page, and luxon would look a zone given by name up again on each.
 */
export function dateTimeRenderer (format: string, zone: string): (value: unknown) => unknown {
  const resolved = Info.normalizeZone(zone)
  return (value) => {
    const moment = toDateTime(value, resolved)
    return moment === undefined ? value : moment.toFormat(format)
  }
}

/** The example a timestamp's schema shows: the fixed moment, in `zone`, in `format`. */
export function formatExample (format: string, zone: string): string {
  return DateTime.fromObject(EXAMPLE_MOMENT, { zone, locale: LOCALE }).toFormat(format)
}

function toDateTime (value: unknown, zone: Zone): DateTime | undefined {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new InvalidDateError(String(value), 'invalid Date')
    return DateTime.fromJSDate(value, { zone }).setLocale(LOCALE)
  }
  if (typeof value !== 'string' || !ISO_SHAPE.test(value)) return undefined
  // The locale is set here, not with setLocale: that copies the DateTime, on every row served.
  const parsed = DateTime.fromISO(forLuxon(value), { zone, setZone: false, locale: LOCALE })
  // luxon always explains why a parse it refused is invalid.
  if (!parsed.isValid) throw new InvalidDateError(value, String(parsed.invalidExplanation))
  return parsed
}

/** What forLuxon rewrites, in a value of ISO_SHAPE: the separator, a lower-case z, a leap second. */
const LUXON_UNREADABLE = /^.{10}[t ]|z$|^.{16}:60/

/**
 * What luxon's ISO parser takes: SQL stores write a space where ISO 8601 writes a T, RFC 3339 also
 * allows a lower-case t and z, and a leap second (`23:59:60`), which luxon cannot hold: it is read
 * as the second before it rather than refused (the schema admits it).
 */
function forLuxon (value: string): string {
  // Most values need none of it: one test rather than three rewrites of every value.
  if (!LUXON_UNREADABLE.test(value)) return value
  return value.replace(/^(.{10})[t ]/, '$1T').replace(/z$/, 'Z').replace(/^(.{10}T\d{2}:\d{2}):60/, '$1:59')
}
