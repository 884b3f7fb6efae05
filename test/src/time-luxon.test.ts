// The renderer against luxon as the gateway used it before it remembered offsets and read common
// strings itself: the same output, or the same error, for generated values, zones and formats.
import fc from 'fast-check'
import t from 'tap'
import { IANAZone, Settings } from 'luxon'
import { dateTimeRenderer, formatDateTime } from '../../src/time.js'
import { luxonRenderer } from '../helpers/luxon-renderer.js'
import { propertyRuns, propertySeed } from '../helpers/fast-check.js'

/** Fixed, so a run is repeatable; a failure prints it with the path to its counterexample. */
const SEED = propertySeed(2026_12)
const NUM_RUNS = propertyRuns(2000)

/** Daylight saving both ways, half-hour and 45-minute offsets, mean times, a skipped day, a negative DST. */
const ZONES = [
  'UTC', 'Etc/GMT+12', 'Europe/Paris', 'Europe/Amsterdam', 'Europe/London', 'Europe/Dublin', 'America/New_York',
  'America/St_Johns', 'America/Sao_Paulo', 'Asia/Kathmandu', 'Asia/Kolkata', 'Asia/Tehran', 'Australia/Lord_Howe',
  'Australia/Eucla', 'Pacific/Chatham', 'Pacific/Apia', 'Pacific/Kiritimati', 'Africa/Casablanca', 'Africa/Freetown', 'Africa/Monrovia',
  'Antarctica/Troll'
] as const

/** Tokens the renderer writes itself. */
const COMMON_TOKENS = [
  'S', 'u', 'SSS', 'uu', 'uuu', 's', 'ss', 'm', 'mm', 'h', 'hh', 'H', 'HH', 'Z', 'ZZ', 'ZZZ', 'z', 'a', 'd', 'dd',
  'c', 'E', 'ccc', 'EEE', 'cccc', 'EEEE', 'ccccc', 'EEEEE', 'L', 'M', 'LL', 'MM', 'LLL', 'MMM', 'LLLL', 'MMMM',
  'LLLLL', 'MMMMM', 'y', 'yy', 'yyyy', 'yyyyyy', 'G', 'GG', 'GGGGG'
] as const
/** Tokens left to luxon: zone names, week and ordinal numbers, epoch, macros, and letters luxon writes as they are. */
const LUXON_TOKENS = [
  'ZZZZ', 'ZZZZZ', 'kk', 'kkkk', 'W', 'WW', 'n', 'nn', 'ii', 'iiii', 'o', 'ooo', 'q', 'qq', 'X', 'x',
  'D', 'DD', 'DDD', 'DDDD', 't', 'tt', 'ttt', 'tttt', 'T', 'TT', 'TTT', 'TTTT', 'f', 'ff', 'fff', 'ffff', 'F', 'FF', 'FFF', 'FFFF',
  'Q', 'cc', 'EE', 'yyy', 'b', 'j'
] as const
/** Text between tokens: luxon copies white space and quoted text, and any run it has no meaning for. */
const LITERALS = [' ', '-', ':', '/', ', ', '.', "'at'", "''", "'T'", "'", 'é', '  '] as const

const HOUR = 3_600_000
const DAY = 24 * HOUR
const FROM = Date.UTC(1900, 0, 1)
const TO = Date.UTC(2100, 11, 31)

/** The renderer as it was, for one value. */
function reference (value: unknown, format: string, zone: string): unknown {
  return luxonRenderer(format, zone)(value)
}

/** What a call gives: its value, or the error it throws. */
function outcome (call: () => unknown): unknown {
  try {
    return { value: call() }
  } catch (error) {
    return { error: String(error) }
  }
}

/** `now` as luxon's clock for the duration of `call`: luxon guesses a wall time's offset with it. */
function at<T> (now: number, call: () => T): T {
  const clock = Settings.now
  Settings.now = () => now
  try {
    return call()
  } finally {
    Settings.now = clock
  }
}

/** The instants a zone's offset changes between 1900 and 2100, probed two weeks apart (enough to draw values near them). */
function transitionsOf (zone: string): number[] {
  const plain = IANAZone.create(zone)
  const found: number[] = []
  for (let start = FROM; start < TO; start += 14 * DAY) {
    let low = start
    let high = start + 14 * DAY
    const before = plain.offset(low)
    if (plain.offset(high) === before) continue
    while (high - low > 1000) {
      const middle = low + Math.floor((high - low) / 2000) * 1000
      if (plain.offset(middle) === before) low = middle
      else high = middle
    }
    found.push(high)
  }
  return found
}

const TRANSITIONS = new Map(ZONES.map((zone) => [zone, transitionsOf(zone)]))

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** A string of ISO_SHAPE: any date and time of the shape (impossible ones too), any precision and designator. */
function writtenFrom (fields: fc.Arbitrary<readonly [number, number, number, number, number, number]>): fc.Arbitrary<string> {
  return fc.tuple(
    fields,
    fc.constantFrom('date', 'minutes', 'seconds', 'fraction'),
    fc.constantFrom('T', 't', ' '),
    fc.stringMatching(/^\d{1,12}$|^\d{29,33}$/),
    fc.oneof(
      fc.constantFrom('', 'Z', 'z', '+00:00', '-00:00', '+01:00', '-03:30', '+05:45', '+13:45', '-12:00', '+14:00'),
      fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.constantFrom(':', '', 'none'))
        .map(([sign, hours, minutes, separator]) => separator === 'none' ? `${sign}${pad(hours)}` : `${sign}${pad(hours)}${separator}${pad(minutes)}`)
    )
  ).map(([[year, month, day, hour, minute, second], precision, separator, fraction, designator]) => {
    const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`
    if (precision === 'date') return date
    const time = `${pad(hour)}:${pad(minute)}` + (precision === 'minutes' ? '' : `:${pad(second)}`) + (precision === 'fraction' ? `.${fraction}` : '')
    return `${date}${separator}${time}${designator}`
  })
}

/** Fields as written, anywhere in 1900 to 2100, out of range now and then (day 31 of February, hour 24, second 60). */
const anyFields = fc.tuple(
  fc.integer({ min: 1900, max: 2100 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }),
  fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 })
)

/** Fields of the wall clock in `zone` (or in UTC) within three hours of one of its changes of offset. */
function fieldsNearChange (zone: string): fc.Arbitrary<readonly [number, number, number, number, number, number]> {
  const changes = TRANSITIONS.get(zone as typeof ZONES[number]) ?? []
  if (changes.length === 0) return anyFields
  return fc.tuple(fc.constantFrom(...changes), fc.integer({ min: -3 * 60, max: 3 * 60 }), fc.boolean(), fc.boolean()).map(([change, minutes, local, earlier]) => {
    const instant = change + minutes * 60_000
    const shift = local ? IANAZone.create(zone).offset(earlier ? change - 1000 : change) * 60_000 : 0
    const wall = new Date(instant + shift)
    return [wall.getUTCFullYear(), wall.getUTCMonth() + 1, wall.getUTCDate(), wall.getUTCHours(), wall.getUTCMinutes(), wall.getUTCSeconds()] as const
  })
}

/** A format of any tokens luxon knows (the common ones most), letters it does not, and literal text. */
const anyFormat = fc.array(fc.oneof(
  { arbitrary: fc.constantFrom(...COMMON_TOKENS), weight: 6 },
  { arbitrary: fc.constantFrom(...LUXON_TOKENS), weight: 1 },
  { arbitrary: fc.constantFrom(...LITERALS), weight: 3 }
), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''))

const anyNow = fc.integer({ min: FROM, max: TO })

t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs per property (FC_RUNS)`)

t.test('any string of the ISO shape renders as luxon renders it, in any zone and format', async (t) => {
  const values = fc.constantFrom(...ZONES).chain((zone) => fc.tuple(
    fc.constant(zone),
    fc.array(writtenFrom(fc.oneof(anyFields, fieldsNearChange(zone))), { minLength: 1, maxLength: 5 })
  ))
  fc.assert(fc.property(values, anyFormat, anyNow, ([zone, strings], format, now) => at(now, () => {
    const render = dateTimeRenderer(format, zone)
    for (const value of strings) {
      t.strictSame(outcome(() => render(value)), outcome(() => reference(value, format, zone)), `${value} as ${JSON.stringify(format)} in ${zone}`)
    }
  })), { seed: SEED, numRuns: NUM_RUNS })
})

t.test('any year of four digits, leap days and the first centuries too, renders as luxon renders it, on the day of the week it fell', async (t) => {
  // The calendar's arithmetic (days from 1970 and back) over its whole range, in zones whose offset
  // is the same in every year: UTC, whole hours either way, and a value's own offset.
  const zones = ['UTC', 'Etc/GMT+12', 'Etc/GMT-14'] as const
  const anyYear = fc.tuple(
    fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 99, 100, 399, 400, 1600, 1700, 1970, 2000, 9999)),
    fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 })
  )
  const format = 'yyyy-MM-dd HH:mm:ss.SSS ZZ'
  fc.assert(fc.property(fc.constantFrom(...zones), writtenFrom(anyYear), (zone, value) => {
    const rendered = outcome(() => dateTimeRenderer(format, zone)(value))
    t.strictSame(rendered, outcome(() => reference(value, format, zone)), `${value} in ${zone}`)
    // The day of the week is not luxon's: see the next test. The calendar repeats every 400 years,
    // so the rendered date 2000 years on, as a Date reads it, fell on the same day.
    const date = /^(-?\d+)-(\d\d)-(\d\d)/.exec((rendered as { value?: string }).value ?? '')
    if (date === null) return
    const weekday = new Date(Date.UTC(Number(date[1]) + 2000, Number(date[2]) - 1, Number(date[3]))).getUTCDay()
    t.equal(dateTimeRenderer('c', zone)(value), String(weekday === 0 ? 7 : weekday), `${value} in ${zone}: the day of the week`)
  }), { seed: SEED, numRuns: NUM_RUNS })
})

t.test('29 February of year 0 was a Tuesday, where luxon names it a Wednesday', async (t) => {
  // luxon 3.7 finds a day of the week through a Date of year 1900 for a year below 100, and 1900
  // has no 29 February: the day after is named. Its own Intl formats (DDDD) name the day it was.
  const value = '0000-02-29T12:00:00Z'
  t.equal(dateTimeRenderer('cccc c', 'UTC')(value), 'Tuesday 2')
  t.equal(reference(value, 'cccc c', 'UTC'), 'Wednesday 3', 'luxon still names the day after; when it no longer does, the test above can compare the day with luxon again')
  t.match(reference(value, 'DDDD', 'UTC'), /^Tuesday, /)
  t.equal(dateTimeRenderer('cccc', 'UTC')('0000-03-01'), 'Wednesday')
})

t.test('a renderer kept across many values, as a mount keeps it, still renders each as luxon does', async (t) => {
  const format = "cccc dd LLLL yyyy 'at' HH:mm:ss.SSS a ZZ Z ZZZ z"
  const renderers = new Map(ZONES.map((zone) => [zone, dateTimeRenderer(format, zone)]))
  const values = fc.constantFrom(...ZONES).chain((zone) => fc.tuple(fc.constant(zone), writtenFrom(fc.oneof(anyFields, fieldsNearChange(zone)))))
  fc.assert(fc.property(values, anyNow, ([zone, value], now) => at(now, () => {
    const render = renderers.get(zone) as (value: unknown) => unknown
    t.strictSame(outcome(() => render(value)), outcome(() => reference(value, format, zone)), `${value} in ${zone}`)
  })), { seed: SEED, numRuns: NUM_RUNS })
})

t.test('any Date renders as luxon renders it', async (t) => {
  const dates = fc.oneof(fc.integer({ min: FROM, max: TO }), fc.constantFrom(8.64e15, -8.64e15, 8.64e15 - DAY, Number.NaN)).map((ms) => new Date(ms))
  fc.assert(fc.property(fc.constantFrom(...ZONES), dates, anyFormat, (zone, date, format) => {
    t.strictSame(outcome(() => formatDateTime(date, format, zone)), outcome(() => reference(date, format, zone)), `${date.getTime()} as ${JSON.stringify(format)} in ${zone}`)
  }), { seed: SEED, numRuns: Math.ceil(NUM_RUNS / 3) })
})

t.test('every token, common or left to luxon, renders as luxon renders it', async (t) => {
  const values = ['2026-01-31T13:05:09.007Z', '2026-07-04 22:30:00.5-04:00', '1937-06-30T12:00:00', '0000-01-01T00:00:00Z', '0099-12-31T23:59:60', '2100-02-28']
  for (const token of [...COMMON_TOKENS, ...LUXON_TOKENS]) {
    for (const zone of ['UTC', 'Europe/Amsterdam', 'America/St_Johns', 'Etc/GMT+12', 'Asia/Kathmandu']) {
      const render = dateTimeRenderer(token, zone)
      for (const value of values) t.equal(render(value), reference(value, token, zone), `${token} of ${value} in ${zone}`)
    }
  }
})

t.test('quoted text, a quote and white space in a format are read as luxon reads them', async (t) => {
  const value = '2026-01-31T13:05:09Z'
  for (const format of ["yyyy-MM-dd'T'HH:mm", "'o''clock' H", "H 'o'clock' d'", "''", "'", "'dd' dd '", ' \t yyyy', "d'd'd", 'y,y.y-y/y:y']) {
    t.equal(formatDateTime(value, format, 'Europe/Paris'), reference(value, format, 'Europe/Paris'), JSON.stringify(format))
  }
  t.equal(formatDateTime(value, "yyyy-MM-dd'T'HH:mm 'h'", 'Europe/Paris'), '2026-01-31T14:05 h')
})

t.test('a wall time skipped by a change to summer time moves forward by the change, as in luxon', async (t) => {
  const cases = [
    ['2026-03-29T02:30:00', 'Europe/Paris', '2026-03-29 03:30 +02:00'],
    ['2026-10-04T02:15:00', 'Australia/Lord_Howe', '2026-10-04 02:45 +11:00'],
    ['2026-03-08T02:59:59', 'America/New_York', '2026-03-08 03:59 -04:00'],
    ['2011-12-30T12:00:00', 'Pacific/Apia', '2011-12-31 12:00 +14:00']
  ] as const
  for (const [value, zone, expected] of cases) {
    t.equal(formatDateTime(value, 'yyyy-MM-dd HH:mm ZZ', zone), expected, `${value} in ${zone}`)
    t.equal(reference(value, 'yyyy-MM-dd HH:mm ZZ', zone), expected, `luxon: ${value} in ${zone}`)
  }
})

t.test('a wall time that happens twice takes the offset luxon guesses with the zone\'s offset now', async (t) => {
  const cases = [
    ['2026-10-25T02:30:00', 'Europe/Paris', '+02:00', '+01:00'],
    ['2026-04-05T01:45:00', 'Australia/Lord_Howe', '+11:00', '+10:30'],
    ['2026-11-01T01:30:00', 'America/St_Johns', '-02:30', '-03:30']
  ] as const
  const january = Date.UTC(2026, 0, 15)
  const july = Date.UTC(2026, 6, 15)
  for (const [value, zone, summer, winter] of cases) {
    const northern = zone !== 'Australia/Lord_Howe'
    for (const [now, expected] of [[january, northern ? winter : summer], [july, northern ? summer : winter]] as const) {
      const rendered = at(now, () => formatDateTime(value, 'HH:mm ZZ', zone))
      t.equal(rendered, `${value.slice(11, 16)} ${expected}`, `${value} in ${zone}, now ${new Date(now).toISOString()}`)
      t.equal(rendered, at(now, () => reference(value, 'HH:mm ZZ', zone)), `luxon agrees: ${value} in ${zone}`)
    }
  }
})

t.test('historical offsets: mean times, a zone moving by 15 minutes, a day skipped', async (t) => {
  const format = 'yyyy-MM-dd HH:mm:ss ZZ Z'
  const cases = [
    ['1960-06-01T12:00:00Z', 'Africa/Monrovia', '1960-06-01 11:15:30 -00:44 -0:44'],
    ['1860-06-01T12:00:00Z', 'Europe/Paris', '1860-06-01 12:09:21 +00:09 +0:9'],
    ['1985-06-01T00:00:00Z', 'Asia/Kathmandu', '1985-06-01 05:30:00 +05:30 +5:30'],
    ['1986-06-01T00:00:00Z', 'Asia/Kathmandu', '1986-06-01 05:45:00 +05:45 +5:45'],
    ['2011-12-30T09:59:59Z', 'Pacific/Apia', '2011-12-29 23:59:59 -10:00 -10'],
    ['2011-12-30T10:00:00Z', 'Pacific/Apia', '2011-12-31 00:00:00 +14:00 +14'],
    ['2026-07-01T12:00:00Z', 'America/St_Johns', '2026-07-01 09:30:00 -02:30 -2:30']
  ] as const
  for (const [value, zone, expected] of cases) {
    t.equal(formatDateTime(value, format, zone), expected, `${value} in ${zone}`)
    t.equal(reference(value, format, zone), expected, `luxon: ${value} in ${zone}`)
  }
})

t.test('one renderer over more days than a zone remembers renders every one as luxon does', async (t) => {
  const render = dateTimeRenderer('yyyy-MM-dd HH:mm ZZ', 'Europe/London')
  for (let day = 0; day < 5000; day++) {
    const value = new Date(Date.UTC(1960, 0, 1) + day * DAY + 2 * HOUR).toISOString()
    const rendered = render(value)
    if (rendered !== reference(value, 'yyyy-MM-dd HH:mm ZZ', 'Europe/London')) t.fail(`${value}: ${String(rendered)}`)
  }
  t.equal(render('1960-01-01T12:00:00Z'), '1960-01-01 12:00 +00:00')
})

t.test('luxon renders the value whole when its defaults are not Latin digits and the Gregorian calendar', async (t) => {
  const numbering = Settings.defaultNumberingSystem
  t.teardown(() => { Settings.defaultNumberingSystem = numbering })
  Settings.defaultNumberingSystem = 'arab'
  t.equal(formatDateTime('2026-01-31T13:05:09Z', 'dd HH', 'UTC'), reference('2026-01-31T13:05:09Z', 'dd HH', 'UTC'))
  t.not(formatDateTime('2026-01-31T13:05:09Z', 'dd HH', 'UTC'), '31 13')
})

t.test('a zone luxon cannot use fails as it does in luxon', async (t) => {
  t.strictSame(outcome(() => formatDateTime('2026-01-31T13:05:09Z', 'HH', 'Mars/Olympus')), outcome(() => reference('2026-01-31T13:05:09Z', 'HH', 'Mars/Olympus')))
  t.throws(() => formatDateTime('2026-01-31T13:05:09Z', 'HH', 'Mars/Olympus'), { name: 'InvalidDateError' })
})
