import t from 'tap'
import { DEFAULT_TIMESTAMP_FORMAT, FormatterDeclarationError, timestampFormatter } from '../../../src/declare/index.js'

t.test('the default format is day first, 24-hour, with the UTC offset', async (t) => {
  t.equal(DEFAULT_TIMESTAMP_FORMAT, 'dd LLL yyyy HH:mm ZZ')
  t.equal(timestampFormatter(DEFAULT_TIMESTAMP_FORMAT, 'Europe/Paris').render('2026-01-31T13:05:09Z'), '31 Jan 2026 14:05 +01:00')
})

t.test('a timestamp produces a string whose example is the fixed moment in the zone', async (t) => {
  const formatter = timestampFormatter(DEFAULT_TIMESTAMP_FORMAT, 'America/New_York')
  t.equal(formatter.produces, 'string')
  t.strictSame(formatter.schema, { examples: ['31 Jan 2026 14:05 -05:00'] })
})

t.test('the example uses the timestamp\'s own format', async (t) => {
  t.strictSame(timestampFormatter('dd LLLL yyyy', 'UTC').schema, { examples: ['31 January 2026'] })
})

t.test('the zone is fixed when the formatter is declared', async (t) => {
  const tokyo = timestampFormatter(DEFAULT_TIMESTAMP_FORMAT, 'Asia/Tokyo')
  t.equal(tokyo.render('2026-01-31T13:05:09Z'), '31 Jan 2026 22:05 +09:00')
  t.equal(tokyo.render('2026-01-31T13:05:09'), '31 Jan 2026 13:05 +09:00')
})

t.test('an unknown zone is refused when the formatter is declared', async (t) => {
  t.throws(() => timestampFormatter(DEFAULT_TIMESTAMP_FORMAT, 'Mars/Olympus'), new FormatterDeclarationError(
    'A timestamp needs an IANA time zone such as "UTC" or "Europe/Paris"; got "Mars/Olympus".'
  ))
})
