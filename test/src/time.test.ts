import t from 'tap'
import { DateTime, Settings } from 'luxon'
import { EXAMPLE_MOMENT, formatDateTime, formatExample, InvalidDateError, isTimeZone, storedInstant } from '../../src/time.js'

const FORMAT = 'dd LLL yyyy HH:mm ZZ'

t.test('an IANA zone is recognised, anything else is not', async (t) => {
  t.strictSame(['UTC', 'Europe/Paris', 'Pacific/Kiritimati', 'Mars/Olympus', 'CET+1', ''].map(isTimeZone), [true, true, true, false, false, false])
})

t.test('an instant with Z is converted to the zone', async (t) => {
  t.equal(formatDateTime('2026-01-31T13:05:09Z', FORMAT, 'Europe/Paris'), '31 Jan 2026 14:05 +01:00')
})

t.test('an instant with an offset is converted to the zone', async (t) => {
  t.equal(formatDateTime('2026-01-31T13:05:09+05:00', FORMAT, 'UTC'), '31 Jan 2026 08:05 +00:00')
  t.equal(formatDateTime('2026-07-04T22:30:00-0400', FORMAT, 'Europe/Paris'), '05 Jul 2026 04:30 +02:00')
})

t.test('a date-time without an offset is wall time in the zone', async (t) => {
  t.equal(formatDateTime('2026-01-31T13:05:09', FORMAT, 'Asia/Tokyo'), '31 Jan 2026 13:05 +09:00')
  t.equal(formatDateTime('2026-01-31T13:05', FORMAT, 'America/New_York'), '31 Jan 2026 13:05 -05:00')
})

t.test('a date-time written with a space, as SQL stores it, is read like the ISO form', async (t) => {
  t.equal(formatDateTime('2026-01-31 13:05:09', FORMAT, 'UTC'), '31 Jan 2026 13:05 +00:00')
  t.equal(formatDateTime('2026-01-31 13:05:09.250Z', FORMAT, 'Europe/Paris'), '31 Jan 2026 14:05 +01:00')
})

t.test('RFC 3339\'s lower-case t and z, and a leap second, are read too', async (t) => {
  t.equal(formatDateTime('2026-01-31t13:05:09z', FORMAT, 'Europe/Paris'), '31 Jan 2026 14:05 +01:00')
  t.equal(formatDateTime('2016-12-31T23:59:60Z', 'yyyy-MM-dd HH:mm:ss', 'UTC'), '2016-12-31 23:59:59')
  t.equal(formatDateTime('2016-12-31 23:59:60', 'yyyy-MM-dd HH:mm:ss', 'UTC'), '2016-12-31 23:59:59')
})

t.test('a bare date is midnight in the zone, so it never shifts day', async (t) => {
  for (const zone of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Etc/GMT+12', 'Asia/Tokyo', 'America/Los_Angeles']) {
    t.equal(formatDateTime('1974-05-01', 'dd LLLL yyyy', zone), '01 May 1974', zone)
    t.equal(formatDateTime('1974-05-01', 'yyyy-MM-dd HH:mm', zone), '1974-05-01 00:00', zone)
  }
})

t.test('the machine\'s own zone plays no part', async (t) => {
  const defaultZone = Settings.defaultZone
  t.teardown(() => { Settings.defaultZone = defaultZone })
  Settings.defaultZone = 'Pacific/Kiritimati'
  t.equal(formatDateTime('1974-05-01', 'dd LLLL yyyy', 'Etc/GMT+12'), '01 May 1974')
  t.equal(formatDateTime('2026-01-31T13:05:09', FORMAT, 'UTC'), '31 Jan 2026 13:05 +00:00')
  t.equal(formatExample(FORMAT, 'UTC'), '31 Jan 2026 14:05 +00:00')
})

t.test('a JS Date is an instant', async (t) => {
  t.equal(formatDateTime(new Date(Date.UTC(2026, 0, 31, 13, 5, 9)), FORMAT, 'Europe/Paris'), '31 Jan 2026 14:05 +01:00')
  t.equal(formatDateTime(new Date(Date.UTC(2026, 0, 31, 13, 5, 9)), FORMAT, 'Pacific/Kiritimati'), '01 Feb 2026 03:05 +14:00')
})

t.test('anything that is not a date-time passes through unchanged', async (t) => {
  const object = { at: '2026-01-31' }
  for (const value of ['soon', 'INV-1', '2026-01', '2026-01-31T13', '20260131', '31/01/2026', '', 42, true, null, undefined, object, ['2026-01-31']]) {
    t.equal(formatDateTime(value, FORMAT, 'UTC'), value, String(value))
  }
})

t.test('an impossible date is an error, not silent garbage', async (t) => {
  t.throws(() => formatDateTime('2026-02-30', FORMAT, 'UTC'), new InvalidDateError('2026-02-30', 'you specified 30 (of type number) as a day, which is invalid'))
  t.throws(() => formatDateTime('2026-02-30', FORMAT, 'UTC'), { name: 'InvalidDateError', value: '2026-02-30', message: 'Not a real date-time: "2026-02-30" (you specified 30 (of type number) as a day, which is invalid).' })
  t.throws(() => formatDateTime('2026-01-31T25:00:00Z', FORMAT, 'UTC'), { name: 'InvalidDateError', value: '2026-01-31T25:00:00Z' })
})

t.test('an invalid JS Date is an error', async (t) => {
  t.throws(() => formatDateTime(new Date('nope'), FORMAT, 'UTC'), { name: 'InvalidDateError', message: 'Not a real date-time: "Invalid Date" (invalid Date).' })
})

t.test('month names and AM/PM are en-US whatever the default locale', async (t) => {
  const defaultLocale = Settings.defaultLocale
  t.teardown(() => { Settings.defaultLocale = defaultLocale })
  Settings.defaultLocale = 'fr-FR'
  t.equal(formatDateTime('2026-07-04T22:30:00Z', 'EEEE dd LLLL yyyy hh:mm a', 'UTC'), 'Saturday 04 July 2026 10:30 PM')
  t.equal(formatExample('dd LLLL yyyy h a', 'UTC'), '31 January 2026 2 PM')
})

t.test('the example is the fixed moment 2026-01-31 14:05:09 in the zone', async (t) => {
  t.strictSame(EXAMPLE_MOMENT, { year: 2026, month: 1, day: 31, hour: 14, minute: 5, second: 9 })
  t.equal(formatExample('yyyy-MM-dd HH:mm:ss ZZ', 'UTC'), '2026-01-31 14:05:09 +00:00')
  t.equal(formatExample(FORMAT, 'Europe/Paris'), '31 Jan 2026 14:05 +01:00')
  t.equal(formatExample(FORMAT, 'Asia/Kolkata'), '31 Jan 2026 14:05 +05:30')
})

t.test('the two commonest shapes, read digit by digit, render as luxon renders them; anything near them is read as before', async (t) => {
  const luxonOf = (value: string, format: string, zone: string) => DateTime.fromISO(value.replace(' ', 'T'), { zone, locale: 'en-US' }).toFormat(format)
  for (const value of ['2026-01-31', '2026-03-29T01:30:00Z', '2026-10-25T00:59:59Z', '0099-12-31', '2026-01-31 13:05:09Z', '2026-01-31T13:05:09.5Z', '2026-01-31T13:05:09+01:00', '2026-01-31T24:00:00Z']) {
    t.equal(formatDateTime(value, FORMAT, 'Europe/Paris'), luxonOf(value, FORMAT, 'Europe/Paris'), value)
  }
  // A character out of place in either shape: not a date-time, passed through as it was.
  for (const value of ['2026-0x-31', '2026/01/31', '2026-01-31T13:0x:09Z', '2026-01-31T13:05:09_', '2026-01-31T13-05:09Z', '2026-01-31X13:05:09Z', '20a6-01-31']) {
    t.equal(formatDateTime(value, FORMAT, 'Europe/Paris'), value, value)
  }
  // Read, then refused as impossible, as luxon refuses them (luxon reads 24:00 as the next midnight, above).
  for (const value of ['2026-02-30', '2026-13-01', '2026-01-31T23:60:00Z']) {
    t.throws(() => formatDateTime(value, FORMAT, 'Europe/Paris'), InvalidDateError, value)
  }
})

t.test('a stored timestamp\'s text as RFC 3339, naming the same instant', async (t) => {
  const cases: Array<[string, string | undefined, string | undefined]> = [
    ['2026-12-02 15:30:05', 'UTC', '2026-12-02T15:30:05Z'],
    ['2026-12-02 15:30:05', 'Europe/Paris', '2026-12-02T15:30:05+01:00'],
    ['2026-07-02 15:30:05.123456', 'Europe/Paris', '2026-07-02T15:30:05.123456+02:00'],
    ['2026-12-02 15:30', 'UTC', '2026-12-02T15:30:00Z'],
    ['2026-12-02 15:30:05+00', 'UTC', '2026-12-02T15:30:05+00:00'],
    ['2026-12-02T15:30:05+0530', undefined, '2026-12-02T15:30:05+05:30'],
    ['2026-12-02t15:30:05z', undefined, '2026-12-02T15:30:05Z'],
    ['2026-12-31 23:59:60Z', 'UTC', '2026-12-31T23:59:60Z'],
    ['2026-12-02 15:30:05', undefined, undefined],
    ['2026-12-02', 'UTC', undefined],
    ['2026-02-30 10:00:00', 'UTC', undefined],
    ['yesterday', 'UTC', undefined]
  ]
  for (const [text, zone, expected] of cases) t.equal(storedInstant(text, zone), expected, `${text} stored ${zone ?? 'with its offset'}`)
})
