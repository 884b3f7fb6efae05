// The timestamp renderer as it was before it remembered offsets: luxon reads every value, in
// luxon's own zone, and formats it. The tests compare with it and the bench measures against it.
import { DateTime, Info, type Zone } from 'luxon'
import { InvalidDateError } from '../../src/time.js'

const ISO_SHAPE = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/

export function luxonRenderer (format: string, zone: string): (value: unknown) => unknown {
  const resolved = Info.normalizeZone(zone)
  return (value) => {
    const moment = toDateTime(value, resolved)
    return moment === undefined ? value : moment.toFormat(format)
  }
}

function toDateTime (value: unknown, zone: Zone): DateTime | undefined {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new InvalidDateError(String(value), 'invalid Date')
    return DateTime.fromJSDate(value, { zone }).setLocale('en-US')
  }
  if (typeof value !== 'string' || !ISO_SHAPE.test(value)) return undefined
  const readable = value.replace(/^(.{10})[t ]/, '$1T').replace(/z$/, 'Z').replace(/^(.{10}T\d{2}:\d{2}):60/, '$1:59')
  const parsed = DateTime.fromISO(readable, { zone, setZone: false, locale: 'en-US' })
  if (!parsed.isValid) throw new InvalidDateError(value, String(parsed.invalidExplanation))
  return parsed
}
