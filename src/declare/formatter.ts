// A formatter is a transform and the JSON type it produces, declared together, so the payload
// and the schema an agent is shown can never disagree about what a formatted field holds.

export const PRODUCIBLE_TYPES = ['string', 'number', 'integer', 'boolean'] as const
export type Produces = typeof PRODUCIBLE_TYPES[number]

/** A JSON Schema fragment describing what a formatter produces (never its `type`). */
export type SchemaFragment = Readonly<Record<string, unknown>>

export interface Formatter {
  /** Receives the presented value (a decimal as its string, a date as its ISO string), never null. */
  readonly render: (value: unknown) => unknown
  readonly produces: Produces
  readonly schema: SchemaFragment
}

export interface FormatterOptions {
  render: (value: unknown) => unknown
  produces: Produces
  schema?: SchemaFragment
}

export class FormatterDeclarationError extends Error {
  override name = 'FormatterDeclarationError'
}

/** Declares a formatter, refusing a `produces` outside the JSON scalars and a fragment naming `type`. */
export function defineFormatter (options: FormatterOptions): Formatter {
  const { render, produces, schema = {} } = options
  if (!(PRODUCIBLE_TYPES as readonly unknown[]).includes(produces)) {
    throw new FormatterDeclarationError(
      `A formatter's "produces" must be one of ${PRODUCIBLE_TYPES.join(', ')}; got ${JSON.stringify(produces)}.`
    )
  }
  if (typeof render !== 'function') {
    throw new FormatterDeclarationError('A formatter needs a "render" function.')
  }
  if (Object.hasOwn(schema, 'type')) {
    throw new FormatterDeclarationError(
      `A formatter's schema fragment must not name "type" (it says ${JSON.stringify(schema.type)}): set "produces" instead.`
    )
  }
  return Object.freeze({ render, produces, schema: Object.freeze({ ...schema }) })
}
