// The formatters a declaration file names: money, numbers, calendar days.
import t from 'tap'
import { dateFormatter, moneyFormatter, numberFormatter } from '../../../src/declare/built-in-formatters.js'
import { FormatterDeclarationError } from '../../../src/declare/formatter.js'

t.test('money in units keeps the stored decimal exactly', async (t) => {
  const euros = moneyFormatter({ currency: 'EUR' })
  t.equal(euros.render('9.99'), 'EUR 9.99')
  t.equal(euros.render('12345678901234567890.01'), 'EUR 12345678901234567890.01')
  t.equal(euros.produces, 'string')
  t.strictSame(euros.schema, { examples: ['EUR 9.99'] })
})

t.test('money in cents is written as units, a negative amount signed', async (t) => {
  const cents = moneyFormatter({ currency: 'USD', in: 'cents' })
  t.equal(cents.render(8019), 'USD 80.19')
  t.equal(cents.render(5), 'USD 0.05')
  t.equal(cents.render(-150), 'USD -1.50')
  t.equal(cents.render(0), 'USD 0.00')
})

t.test('a currency is an ISO 4217 code', async (t) => {
  t.throws(() => moneyFormatter({ currency: 'euro' }), new FormatterDeclarationError('A currency is an ISO 4217 code such as "EUR"; got "euro".'))
})

t.test('numbers in English notation, a decimal string read exactly', async (t) => {
  t.equal(numberFormatter().render(1234.5), '1,234.5')
  t.strictSame(numberFormatter().schema, { examples: ['1,234.5'] })
  t.equal(numberFormatter({ decimals: 2 }).render('12345678901234567.89'), '12,345,678,901,234,567.89')
  t.equal(numberFormatter({ decimals: 0, grouping: false, unit: 'kg' }).render(1234.5), '1235 kg')
})

t.test('decimals are a whole number from 0 to 20', async (t) => {
  for (const decimals of [-1, 21, 1.5]) {
    t.throws(() => numberFormatter({ decimals }), new FormatterDeclarationError(`decimals must be a whole number from 0 to 20; got ${decimals}.`))
  }
})

t.test('a calendar day, read in UTC', async (t) => {
  t.equal(dateFormatter().render('2026-01-31'), '31 Jan 2026')
  t.equal(dateFormatter({ format: 'yyyy/MM/dd' }).render('2026-01-31T23:30:00Z'), '2026/01/31')
})
