// The formatters a declaration file can name: money in a currency, numbers, calendar days. Each is
// a plain formatter, so a TypeScript declaration can use them as well.
import { defineFormatter, FormatterDeclarationError, type Formatter } from './formatter.js'
import { timestampFormatter } from './timestamp.js'

export interface MoneyOptions {
  /** The ISO 4217 code written before the amount (`EUR`). */
  readonly currency: string
  /** `units` (default): the value is the amount, a decimal kept exactly as stored; `cents`: whole hundredths. */
  readonly in?: 'units' | 'cents'
}

/**
 * An amount as `EUR 9.99`: the stored amount with at least as many decimals as the currency has
 * (ISO 4217: EUR 2, JPY 0, KWD 3), so `1.5` and `2` read `EUR 1.50` and `EUR 2.00` whatever the
 * column's type; digits beyond them are kept (`EUR 9.999`), never rounded away. Whole cents are
 * written as units.
 */
export function moneyFormatter (options: MoneyOptions): Formatter {
  const { currency } = options
  if (!/^[A-Z]{3}$/.test(currency)) throw new FormatterDeclarationError(`A currency is an ISO 4217 code such as "EUR"; got ${JSON.stringify(currency)}.`)
  const digits = currencyDigits(currency)
  const render = options.in === 'cents'
    ? (cents: unknown) => `${currency} ${fromCents(Number(cents))}`
    : (amount: unknown) => `${currency} ${padded(plainDecimal(amount), digits)}`
  return defineFormatter({ render, produces: 'string', schema: { examples: [`${currency} ${padded('9.99', digits)}`] } })
}

/** The decimals a currency's amounts are written with, by ISO 4217 (2 for a code Intl does not know); Intl always resolves them for a currency. */
function currencyDigits (currency: string): number {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().minimumFractionDigits as number
}

/** A number with no exponent (`1e-7` as `0.0000001`); a decimal string as it is stored. */
function plainDecimal (amount: unknown): string {
  if (typeof amount !== 'number') return String(amount)
  const shortest = String(amount)
  return shortest.includes('e') ? PLAIN.format(amount) : shortest
}

const PLAIN = new Intl.NumberFormat('en-US', { useGrouping: false, maximumFractionDigits: 20 })

/** `text` with zeros after its point up to `digits` decimals; one with more keeps them all. */
function padded (text: string, digits: number): string {
  const point = text.indexOf('.')
  const decimals = point === -1 ? 0 : text.length - point - 1
  if (decimals >= digits) return text
  return `${point === -1 ? `${text}.` : text}${'0'.repeat(digits - decimals)}`
}

export interface NumberOptions {
  /** Digits after the point (default: the value's own, up to 3). */
  readonly decimals?: number
  /** Thousands separated by commas (default true). */
  readonly grouping?: boolean
  /** A word written after the number (`kg`). */
  readonly unit?: string
}

/** A number in English notation, `1,234.5`; a decimal string is read exactly, not as a float. */
export function numberFormatter (options: NumberOptions = {}): Formatter {
  const { decimals, unit } = options
  if (decimals !== undefined && (!Number.isInteger(decimals) || decimals < 0 || decimals > 20)) {
    throw new FormatterDeclarationError(`decimals must be a whole number from 0 to 20; got ${decimals}.`)
  }
  const digits = decimals === undefined ? {} : { minimumFractionDigits: decimals, maximumFractionDigits: decimals }
  const notation = new Intl.NumberFormat('en-US', { useGrouping: options.grouping ?? true, ...digits })
  const render = (value: unknown): string => {
    // Intl reads a numeric string exactly (a decimal beyond a float's precision stays exact).
    const written = notation.format(value as number)
    return unit === undefined ? written : `${written} ${unit}`
  }
  return defineFormatter({ render, produces: 'string', schema: { examples: [render(1234.5)] } })
}

/** The calendar day of a date or date-time with luxon tokens (default `dd LLL yyyy`), read in UTC. */
export function dateFormatter (options: { readonly format?: string } = {}): Formatter {
  return timestampFormatter(options.format ?? 'dd LLL yyyy', 'UTC')
}

function fromCents (cents: number): string {
  const sign = cents < 0 ? '-' : ''
  const whole = Math.abs(Math.trunc(cents))
  return `${sign}${Math.trunc(whole / 100)}.${String(whole % 100).padStart(2, '0')}`
}
