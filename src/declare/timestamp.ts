// The built-in formatter behind the `timestamp` marking: a date-time shown in the gateway's zone.
import { dateTimeRenderer, formatExample, isTimeZone } from '../time.js'
import { defineFormatter, FormatterDeclarationError, type Formatter } from './formatter.js'

/** Day first, 24-hour clock, with the UTC offset: a time without its zone misleads a reader. */
export const DEFAULT_TIMESTAMP_FORMAT = 'dd LLL yyyy HH:mm ZZ'

/** A formatter rendering date-times with luxon `format` tokens in the IANA `zone`. */
export function timestampFormatter (format: string, zone: string): Formatter {
  // An unknown zone would render every timestamp, and the example, as "Invalid DateTime".
  if (!isTimeZone(zone)) throw new FormatterDeclarationError(`A timestamp needs an IANA time zone such as "UTC" or "Europe/Paris"; got ${JSON.stringify(zone)}.`)
  return defineFormatter({
    render: dateTimeRenderer(format, zone),
    produces: 'string',
    schema: { examples: [formatExample(format, zone)] }
  })
}
