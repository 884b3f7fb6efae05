// Every use of luxon lives here: pure functions, "now" is always a parameter.
import { DateTime, IANAZone, Info, Settings, type Zone } from 'luxon'
import { compileFormat, type WallClock } from './time-tokens.js'

/** Month names and AM/PM are English whatever the machine's locale. */
const LOCALE = 'en-US'

/** ISO 8601 date or date-time, as stored or presented: `2026-01-31`, `2026-01-31T13:05:09Z`. */
const ISO_SHAPE = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/

/** ISO_SHAPE with its parts captured, the fraction as long as luxon reads one (longer is refused). */
const ISO_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,30}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

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
 * `formatDateTime` for one format and zone, both read once: a formatter renders every row of every
 * page. A string luxon would read without surprise, in a format of common tokens, is rendered
 * without building a DateTime; everything else goes through luxon whole. Either way the zone's
 * offsets are remembered (see RememberingZone).
 */
export function dateTimeRenderer (format: string, zone: string): (value: unknown) => unknown {
  const resolved = remembering(Info.normalizeZone(zone))
  const render = resolved.isValid ? compileFormat(format) : undefined
  return (value) => {
    if (render !== undefined && typeof value === 'string' && luxonDigits()) {
      const clock = wallClock(value, resolved)
      if (clock !== undefined) return render(clock)
    }
    const moment = toDateTime(value, resolved)
    return moment === undefined ? value : moment.toFormat(format)
  }
}

/** The example a timestamp's schema shows: the fixed moment, in `zone`, in `format`. */
export function formatExample (format: string, zone: string): string {
  return DateTime.fromObject(EXAMPLE_MOMENT, { zone, locale: LOCALE }).toFormat(format)
}

const MINUTE = 60_000
const HOUR = 3_600_000
/** Milliseconds in a UTC day: the span RememberingZone learns an offset for. */
const DAY = 86_400_000
/** Instants closer than this to the ends of a JavaScript date are left to luxon: a day's ends must be real dates. */
const REMEMBERED_RANGE = 8.64e15 - 2 * DAY
/** Days one zone remembers before it starts over: about eleven years of distinct days. */
const REMEMBERED_DAYS = 4096

/** A UTC day of a zone: its offset before `change` (the day's end when nothing changes) and from it. */
interface DayOffsets {
  readonly change: number
  readonly before: number
  readonly after: number
}

/**
 * An IANA zone that asks Intl for an offset once per UTC day, not once per value: luxon's own
 * asks on every call, and a value costs one to three calls. It stays an IANA zone (name, type,
 * offset names, Intl formatting), so luxon treats it as the zone it wraps. It relies on a zone never
 * changing offset twice within a day: in the time zone database (1800 to 2100) the closest two
 * changes are four days apart (Freetown, September 1939).
 */
class RememberingZone extends IANAZone {
  readonly #days = new Map<number, DayOffsets>()

  override offset (ts: number): number {
    // What luxon's offset reads: the whole milliseconds of a date, within a date's range.
    const at = Math.trunc(ts)
    if (!(Math.abs(at) <= REMEMBERED_RANGE)) return super.offset(ts)
    const index = Math.floor(at / DAY)
    const day = this.#days.get(index) ?? this.#learn(index)
    return at < day.change ? day.before : day.after
  }

  /**
   * The day's offsets at its start and at the next day's start (a neighbour already learned knows
   * them: dates served in order cost one Intl call a day), and the second the offset changes.
   */
  #learn (index: number): DayOffsets {
    // Forgetting everything is cruder than an LRU, but a day costs one or two Intl calls to learn again.
    if (this.#days.size >= REMEMBERED_DAYS) this.#days.clear()
    const start = index * DAY
    const before = this.#days.get(index - 1)?.after ?? super.offset(start)
    let after = before
    let change = start + DAY
    const next = this.#days.get(index + 1)?.before ?? super.offset(change)
    if (next !== before) {
      // luxon's offset is one per whole second: search the seconds for the first with the new one.
      let low = start
      while (change - low > 1000) {
        const middle = low + Math.floor((change - low) / 2000) * 1000
        if (super.offset(middle) === before) low = middle
        else change = middle
      }
      after = next
    }
    const day = { change, before, after }
    this.#days.set(index, day)
    return day
  }
}

function remembering (zone: Zone): Zone {
  return zone instanceof IANAZone && zone.isValid ? new RememberingZone(zone.name) : zone
}

/** True while luxon writes Latin digits in the Gregorian calendar, as the common tokens are written. */
function luxonDigits (): boolean {
  return Settings.defaultNumberingSystem == null && Settings.defaultOutputCalendar == null
}

/**
 * The wall clock luxon would give `value` in `zone`, read without luxon: undefined for anything
 * that is not a real date-time of ISO_SHAPE, which luxon then reads (and refuses) itself; so is a
 * leap second, rare enough to leave to forLuxon.
 */
function wallClock (value: string, zone: Zone): WallClock | undefined {
  const fields = commonFields(value) ?? isoFields(value)
  if (fields === undefined) return undefined
  const { year, month, day, hour, minute, second, millisecond, given } = fields
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined
  const local = localTimestamp(year, month, day, hour, minute, second, millisecond)
  let ts: number
  let o: number
  if (given !== undefined) {
    ts = local - given * 60 * 1000
    o = zone.offset(ts)
  } else {
    // luxon guesses the offset of a wall time with the zone's offset now, which picks the
    // earlier or later of an hour that happens twice.
    [ts, o] = fixOffset(local, zone.offset(Settings.now()), zone)
  }
  // As luxon's DateTime: the fields from the offset it settled on, the Z tokens from the zone; the
  // whole milliseconds, as a Date holding the wall time would read them, without making one.
  const wall = Math.trunc(ts + o * 60 * 1000)
  const days = Math.floor(wall / DAY)
  const inDay = wall - days * DAY
  const date = civilFromDays(days)
  return {
    year: date.year,
    month: date.month,
    day: date.day,
    hour: Math.floor(inDay / HOUR),
    minute: Math.floor(inDay / MINUTE) % 60,
    second: Math.floor(inDay / 1000) % 60,
    millisecond: inDay % 1000,
    // ISO's 1 (Monday) to 7: day 0, 1 January 1970, was a Thursday.
    weekday: ((days % 7) + 10) % 7 + 1,
    offset: zone.offset(ts),
    zone: zone.name
  }
}

/** A value's fields as ISO_PARTS reads them; `given` is the offset written in it, in minutes, if any. */
interface IsoFields {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly millisecond: number
  readonly given: number | undefined
}

function isoFields (value: string): IsoFields | undefined {
  const parts = ISO_PARTS.exec(value)
  if (parts === null) return undefined
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction, z, sign, offsetHours, offsetMinutes = '0'] = parts
  return {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s),
    millisecond: fraction === undefined ? 0 : Math.floor(parseFloat('0.' + fraction) * 1000),
    given: z !== undefined ? 0 : sign === undefined ? undefined : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes))
  }
}

/**
 * The two shapes stores write most, `2026-01-31` and `2026-01-31T13:05:09Z`, read digit by digit:
 * the same fields as isoFields, without a regular expression's captures. Anything else (another
 * separator, a fraction, an offset, a character out of place) is undefined, and isoFields reads it.
 */
function commonFields (value: string): IsoFields | undefined {
  const length = value.length
  if ((length !== 10 && length !== 20) || value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH) return undefined
  const year = digits(value, 0, 4)
  const month = digits(value, 5, 2)
  const day = digits(value, 8, 2)
  if (length === 10) return year < 0 || month < 0 || day < 0 ? undefined : { year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0, given: undefined }
  if (value.charCodeAt(10) !== UPPER_T || value.charCodeAt(13) !== COLON || value.charCodeAt(16) !== COLON || value.charCodeAt(19) !== UPPER_Z) return undefined
  const hour = digits(value, 11, 2)
  const minute = digits(value, 14, 2)
  const second = digits(value, 17, 2)
  return year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 ? undefined : { year, month, day, hour, minute, second, millisecond: 0, given: 0 }
}

const DASH = 0x2d
const COLON = 0x3a
const UPPER_T = 0x54
const UPPER_Z = 0x5a
const ZERO = 0x30

/** The decimal number of `count` digits at `start`, or -1 if one of them is no ASCII digit. */
function digits (text: string, start: number, count: number): number {
  let number = 0
  for (let i = start; i < start + count; i++) {
    const digit = text.charCodeAt(i) - ZERO
    if (digit < 0 || digit > 9) return -1
    number = number * 10 + digit
  }
  return number
}

function daysInMonth (year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]
}

/** luxon's objToLocalTS: the fields as if in UTC, years 0 to 99 not taken for 1900 to 1999. */
function localTimestamp (year: number, month: number, day: number, hour: number, minute: number, second: number, millisecond: number): number {
  return daysFromCivil(year, month, day) * DAY + hour * HOUR + minute * MINUTE + second * 1000 + millisecond
}

// Howard Hinnant's algorithms (https://howardhinnant.github.io/date_algorithms.html): the days
// from 1 January 1970 of a date of the proleptic Gregorian calendar, as a Date counts them, and
// back, in whole numbers. A page renders a timestamp per row, and a Date made and read field by
// field for each cost more than the rest of the rendering.

/** The days of an era: the 400 years after which the calendar repeats. */
const ERA_DAYS = 146_097
/** The days from 1 March of year 0 to 1 January 1970. */
const EPOCH_SHIFT = 719_468

function daysFromCivil (year: number, month: number, day: number): number {
  // Years counted from 1 March, so that a leap day ends its year.
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * ERA_DAYS + dayOfEra - EPOCH_SHIFT
}

function civilFromDays (days: number): { year: number, month: number, day: number } {
  const shifted = days + EPOCH_SHIFT
  const era = Math.floor(shifted / ERA_DAYS)
  const dayOfEra = shifted - era * ERA_DAYS
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365)
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153)
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day: dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1 }
}

/**
 * luxon's fixOffset: the instant of a wall time, from a guessed offset. In an hour that happens
 * twice the guess decides; in an hour skipped, the wall time moves forward by the change.
 */
function fixOffset (local: number, guess: number, zone: Zone): [ts: number, offset: number] {
  let utc = local - guess * 60 * 1000
  const o2 = zone.offset(utc)
  if (guess === o2) return [utc, guess]
  utc -= (o2 - guess) * 60 * 1000
  const o3 = zone.offset(utc)
  if (o2 === o3) return [utc, o2]
  return [local - Math.min(o2, o3) * 60 * 1000, Math.max(o2, o3)]
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

/**
 * A stored date-time's text as RFC 3339 writes it, naming the same instant: a `T` between date and
 * time, seconds written, an offset of its own kept (as `±HH:MM`), and a text without one read as wall time in `zone`
 * (`UTC`, or an IANA zone) and given that zone's offset at that time. Undefined when the text is not
 * a real date-time (a bare date included), or has no offset and no `zone` says how to read it.
 */
export function storedInstant (text: string, zone: string | undefined): string | undefined {
  const parts = ISO_PARTS.exec(text)
  if (parts === null || parts[4] === undefined) return undefined
  const [, , , , hour, minute, second, fraction, zulu, sign, hours, minutes] = parts
  const offset = zulu !== undefined ? 'Z' : sign !== undefined ? `${sign}${hours}:${minutes ?? '00'}` : undefined
  if (offset === undefined && zone === undefined) return undefined
  const moment = DateTime.fromISO(forLuxon(text), { zone: zone ?? 'UTC', setZone: true })
  if (!moment.isValid) return undefined
  const clock = `${hour}:${minute}:${second ?? '00'}${fraction === undefined ? '' : `.${fraction}`}`
  return `${text.slice(0, 10)}T${clock}${offset ?? (zone === 'UTC' ? 'Z' : moment.toFormat('ZZ'))}`
}
