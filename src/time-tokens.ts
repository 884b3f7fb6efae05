// The luxon format tokens a timestamp is usually written with, rendered from a wall clock without
// building a luxon DateTime: luxon's toFormat alone costs more per value than a whole projected row
// may. Every other token is left to luxon (`compileFormat` answers undefined), and the tests pin
// each token here to luxon's own output.

/** A moment as luxon's formatter reads it: the wall clock in the zone, the zone's offset, its name. */
export interface WallClock {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly millisecond: number
  /** ISO weekday: Monday is 1, Sunday 7. */
  readonly weekday: number
  /** Minutes east of UTC; fractional for a mean time (Monrovia's -00:44:30 until 1972). */
  readonly offset: number
  readonly zone: string
}

type Token = (clock: WallClock) => string

/** A piece of luxon's reading of a format: text to copy, or a run of one character. */
interface FormatPart {
  readonly literal: boolean
  readonly val: string
}

/** luxon's English names (its `listingMode` is "en" for en-US with Latin digits). */
const MONTHS = {
  short: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
  long: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  narrow: ['J', 'F', 'M', 'A', 'M', 'J', 'J', 'A', 'S', 'O', 'N', 'D']
} as const
const WEEKDAYS = {
  short: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'],
  long: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  narrow: ['M', 'T', 'W', 'T', 'F', 'S', 'S']
} as const
const ERAS = { short: ['BC', 'AD'], long: ['Before Christ', 'Anno Domini'], narrow: ['B', 'A'] } as const

const month = (names: readonly string[]): Token => (clock) => names[clock.month - 1]
const weekday = (names: readonly string[]): Token => (clock) => names[clock.weekday - 1]
const era = (names: readonly string[]): Token => (clock) => names[clock.year < 0 ? 0 : 1]
const hour12 = (clock: WallClock) => clock.hour % 12 === 0 ? 12 : clock.hour % 12

/** The tokens rendered here, each as luxon's Formatter writes it (`num` is its padStart). */
const TOKENS: ReadonlyMap<string, Token> = new Map<string, Token>([
  ['S', (c) => num(c.millisecond)],
  ['u', (c) => num(c.millisecond, 3)],
  ['SSS', (c) => num(c.millisecond, 3)],
  ['uu', (c) => num(Math.floor(c.millisecond / 10), 2)],
  ['uuu', (c) => num(Math.floor(c.millisecond / 100))],
  ['s', (c) => num(c.second)],
  ['ss', (c) => num(c.second, 2)],
  ['m', (c) => num(c.minute)],
  ['mm', (c) => num(c.minute, 2)],
  ['h', (c) => num(hour12(c))],
  ['hh', (c) => num(hour12(c), 2)],
  ['H', (c) => num(c.hour)],
  ['HH', (c) => num(c.hour, 2)],
  ['Z', (c) => offset(c.offset, 'narrow')],
  ['ZZ', (c) => offset(c.offset, 'short')],
  ['ZZZ', (c) => offset(c.offset, 'techie')],
  ['z', (c) => c.zone],
  ['a', (c) => c.hour < 12 ? 'AM' : 'PM'],
  ['d', (c) => num(c.day)],
  ['dd', (c) => num(c.day, 2)],
  ['c', (c) => num(c.weekday)],
  ['E', (c) => num(c.weekday)],
  ['ccc', weekday(WEEKDAYS.short)],
  ['EEE', weekday(WEEKDAYS.short)],
  ['cccc', weekday(WEEKDAYS.long)],
  ['EEEE', weekday(WEEKDAYS.long)],
  ['ccccc', weekday(WEEKDAYS.narrow)],
  ['EEEEE', weekday(WEEKDAYS.narrow)],
  ['L', (c) => num(c.month)],
  ['M', (c) => num(c.month)],
  ['LL', (c) => num(c.month, 2)],
  ['MM', (c) => num(c.month, 2)],
  ['LLL', month(MONTHS.short)],
  ['MMM', month(MONTHS.short)],
  ['LLLL', month(MONTHS.long)],
  ['MMMM', month(MONTHS.long)],
  ['LLLLL', month(MONTHS.narrow)],
  ['MMMMM', month(MONTHS.narrow)],
  ['y', (c) => num(c.year)],
  // luxon pads the last two characters of the year as written: -5 is "-05", -123 is "23".
  ['yy', (c) => num(Number(String(c.year).slice(-2)), 2)],
  ['yyyy', (c) => num(c.year, 4)],
  ['yyyyyy', (c) => num(c.year, 6)],
  ['G', era(ERAS.short)],
  ['GG', era(ERAS.long)],
  ['GGGGG', era(ERAS.narrow)]
])

/** An ASCII letter: luxon gives a run of one a meaning (or a macro, or itself), so it decides. */
const LETTER = /[A-Za-z]/

/**
 * The renderer of `format` from a wall clock, or undefined when the format holds a token luxon
 * must render itself (a macro such as `DD`, a zone's long name, week numbers...).
 */
export function compileFormat (format: string): ((clock: WallClock) => string) | undefined {
  const tokens: Token[] = []
  for (const { literal, val } of splitFormat(format)) {
    const token = literal ? undefined : TOKENS.get(val)
    if (token !== undefined) tokens.push(token)
    else if (!literal && LETTER.test(val)) return undefined
    // luxon writes a literal, and any run it knows nothing of, as it is.
    else tokens.push(() => val)
  }
  return (clock) => {
    let out = ''
    for (const token of tokens) out += token(clock)
    return out
  }
}

/**
 * luxon's Formatter.parseFormat, which luxon does not export: a run of one character is a token,
 * quoted text and a run of white space are literal, and '' is a quote.
 */
function splitFormat (format: string): FormatPart[] {
  let current: string | null = null
  let currentFull = ''
  let bracketed = false
  const splits: FormatPart[] = []
  for (let i = 0; i < format.length; i++) {
    const c = format.charAt(i)
    if (c === "'") {
      if (currentFull.length > 0 || bracketed) {
        splits.push({ literal: bracketed || /^\s+$/.test(currentFull), val: currentFull === '' ? "'" : currentFull })
      }
      current = null
      currentFull = ''
      bracketed = !bracketed
    } else if (bracketed || c === current) {
      currentFull += c
    } else {
      if (currentFull.length > 0) splits.push({ literal: /^\s+$/.test(currentFull), val: currentFull })
      currentFull = c
      current = c
    }
  }
  if (currentFull.length > 0) splits.push({ literal: bracketed || /^\s+$/.test(currentFull), val: currentFull })
  return splits
}

/** 0 to 99 in two digits: most of what a timestamp writes, written once rather than for every value. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'))

/** luxon's padStart: the sign goes before the zeros. */
function num (n: number, width = 0): string {
  if (width === 2 && n >= 0 && n < 100) return TWO_DIGITS[n]
  return n < 0 ? '-' + String(-n).padStart(width, '0') : String(n).padStart(width, '0')
}

/** luxon's formatOffset: whole hours and minutes, truncated (a mean time's seconds are dropped). */
function offset (minutes: number, format: 'narrow' | 'short' | 'techie'): string {
  const hours = Math.trunc(Math.abs(minutes / 60))
  const rest = Math.trunc(Math.abs(minutes % 60))
  const sign = minutes >= 0 ? '+' : '-'
  if (format === 'narrow') return `${sign}${hours}${rest > 0 ? `:${rest}` : ''}`
  const separator = format === 'short' ? ':' : ''
  return `${sign}${num(hours, 2)}${separator}${num(rest, 2)}`
}
