// RFC 3339's date-time, checked as ajv-formats' full `date-time` checks it (a time zone required,
// a leap second only at 23:59 UTC), without its allocations: it splits the string, then matches
// each part with a regular expression, and every upstream timestamp passes through it before it is
// served, where it took most of the row check's time. Its answer is the same for every string.

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const WHITESPACE = /\s/

/** True when `text` is an RFC 3339 date-time, exactly where ajv-formats' full format says so. */
export function isDateTime (text: string): boolean {
  // yyyy-mm-dd, a T (any case) or a white space, hh:mm:ss, a fraction, then Z or an offset.
  if (text.length < 20 || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH || text.charCodeAt(13) !== COLON || text.charCodeAt(16) !== COLON) return false
  const separator = text.charCodeAt(10)
  if (separator !== 0x54 && separator !== 0x74 && !WHITESPACE.test(text[10])) return false
  const year = number(text, 0, 4)
  const month = number(text, 5, 2)
  const day = number(text, 8, 2)
  const hour = number(text, 11, 2)
  const minute = number(text, 14, 2)
  const whole = number(text, 17, 2)
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || minute < 0 || whole < 0) return false
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS[month])) return false
  let end = 19
  if (text.charCodeAt(end) === DOT) {
    while (isDigit(text.charCodeAt(end + 1))) end++
    if (end === 19) return false
    end++
  }
  const zone = offsetOf(text, end)
  if (zone === undefined) return false
  // As ajv-formats reads them, through a number: a long fraction of nines rounds up.
  const second = end === 19 ? whole : Number(text.slice(17, end))
  if (hour <= 23 && minute <= 59 && second < 60) return true
  // A leap second, where it is 23:59 in UTC.
  const utcMinute = minute - zone.minutes * zone.sign
  const utcHour = hour - zone.hours * zone.sign - (utcMinute < 0 ? 1 : 0)
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61
}

const DASH = 0x2d
const COLON = 0x3a
const DOT = 0x2e

interface Offset {
  readonly sign: 1 | -1
  readonly hours: number
  readonly minutes: number
}

const UTC: Offset = { sign: 1, hours: 0, minutes: 0 }

/** The offset from `at` to the end (`Z`, `+hh`, `+hhmm`, `+hh:mm`), or undefined when it is none or out of range. */
function offsetOf (text: string, at: number): Offset | undefined {
  const first = text.charCodeAt(at)
  const rest = text.length - at
  if (first === 0x5a || first === 0x7a) return rest === 1 ? UTC : undefined
  if ((first !== 0x2b && first !== DASH) || (rest !== 3 && rest !== 5 && rest !== 6)) return undefined
  const hours = number(text, at + 1, 2)
  const colon = rest === 6
  if (colon && text.charCodeAt(at + 3) !== COLON) return undefined
  const minutes = rest === 3 ? 0 : number(text, at + (colon ? 4 : 3), 2)
  if (hours < 0 || minutes < 0 || hours > 23 || minutes > 59) return undefined
  return { sign: first === DASH ? -1 : 1, hours, minutes }
}

/** The `count` ASCII digits at `at` as a number, or -1 where one is not a digit. */
function number (text: string, at: number, count: number): number {
  let value = 0
  for (let i = at; i < at + count; i++) {
    const code = text.charCodeAt(i)
    if (!isDigit(code)) return -1
    value = value * 10 + code - 0x30
  }
  return value
}

function isDigit (code: number): boolean {
  return code >= 0x30 && code <= 0x39
}

function isLeapYear (year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
}
