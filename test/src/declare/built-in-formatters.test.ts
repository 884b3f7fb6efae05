// The formatters a declaration file names: money, numbers, calendar days.
import t from 'tap'
import { dateFormatter, moneyFormatter, numberFormatter } from '../../../src/declare/built-in-formatters.js'
import { FormatterDeclarationError } from '../../../src/declare/formatter.js'

t.test('money in units keeps the stored decimal exactly', async (t) => {
  const euros = moneyFormatter({ currency: 'EUR' })
  t.equal(euros.render('9.99'), 'EUR 9.99')
  t.equal(euros.render('12345678901234567890.01'), 'EUR 12345678901234567890.01')
  t.equal(euros.render('0.123456789012345678901234567'), 'EUR 0.123456789012345678901234567', 'more decimals than the currency has: every one kept, none rounded')
  t.equal(euros.produces, 'string')
  t.strictSame(euros.schema, { examples: ['EUR 9.99'] })
})

t.test('money in units has at least its currency\'s decimals, whatever the column\'s type', async (t) => {
  const euros = moneyFormatter({ currency: 'EUR' })
  // A REAL or INTEGER column's values, and decimal text stored short.
  const written: Array<[unknown, string]> = [
    [1.5, 'EUR 1.50'], [2, 'EUR 2.00'], [0, 'EUR 0.00'], [-0.5, 'EUR -0.50'], [9.99, 'EUR 9.99'], [1e-7, 'EUR 0.0000001'], [1e21, 'EUR 1000000000000000000000.00'],
    ['1.5', 'EUR 1.50'], ['2', 'EUR 2.00'], ['-3', 'EUR -3.00'], ['9.999', 'EUR 9.999']
  ]
  for (const [amount, expected] of written) t.equal(euros.render(amount), expected, JSON.stringify(amount))
  // ISO 4217's decimals: none for the yen, three for the Kuwaiti dinar.
  t.equal(moneyFormatter({ currency: 'JPY' }).render(1500), 'JPY 1500')
  t.equal(moneyFormatter({ currency: 'JPY' }).render('1500.5'), 'JPY 1500.5', 'a stored fraction is kept')
  t.strictSame(moneyFormatter({ currency: 'JPY' }).schema, { examples: ['JPY 9.99'] })
  t.equal(moneyFormatter({ currency: 'KWD' }).render(1.5), 'KWD 1.500')
  t.strictSame(moneyFormatter({ currency: 'KWD' }).schema, { examples: ['KWD 9.990'] })
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
