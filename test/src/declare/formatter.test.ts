import t from 'tap'
import { defineFormatter, FormatterDeclarationError, PRODUCIBLE_TYPES, type FormatterOptions } from '../../../src/declare/index.js'

function render (value: unknown): unknown {
  return `EUR ${String(value)}`
}

t.test('a formatter declares its render, what it produces and a schema fragment', async (t) => {
  const euros = defineFormatter({ render, produces: 'string', schema: { examples: ['EUR 9.99'] } })
  t.equal(euros.render, render)
  t.equal(euros.produces, 'string')
  t.strictSame(euros.schema, { examples: ['EUR 9.99'] })
  t.ok(Object.isFrozen(euros) && Object.isFrozen(euros.schema))
})

t.test('the schema fragment is optional and copied, not shared', async (t) => {
  t.strictSame(defineFormatter({ render, produces: 'integer' }).schema, {})
  const fragment = { examples: ['EUR 1'] }
  t.not(defineFormatter({ render, produces: 'string', schema: fragment }).schema, fragment)
})

t.test('it may produce any JSON scalar', async (t) => {
  t.strictSame(PRODUCIBLE_TYPES, ['string', 'number', 'integer', 'boolean'])
  t.strictSame(PRODUCIBLE_TYPES.map((produces) => defineFormatter({ render, produces }).produces), PRODUCIBLE_TYPES)
})

t.test('a produces outside the JSON scalars is refused', async (t) => {
  for (const produces of ['object', 'array', 'null', 'date', undefined]) {
    t.throws(() => defineFormatter({ render, produces } as unknown as FormatterOptions), new FormatterDeclarationError(
      `A formatter's "produces" must be one of string, number, integer, boolean; got ${JSON.stringify(produces)}.`
    ), String(produces))
  }
})

t.test('a fragment naming type is refused, pointing at produces', async (t) => {
  t.throws(() => defineFormatter({ render, produces: 'string', schema: { type: 'string', examples: ['EUR 1'] } }), new FormatterDeclarationError(
    'A formatter\'s schema fragment must not name "type" (it says "string"): set "produces" instead.'
  ))
})

t.test('produces is checked before the fragment', async (t) => {
  t.throws(
    () => defineFormatter({ render, produces: 'date', schema: { type: 'string' } } as unknown as FormatterOptions),
    { name: 'FormatterDeclarationError', message: 'A formatter\'s "produces" must be one of string, number, integer, boolean; got "date".' }
  )
})

t.test('a formatter without a render function is refused', async (t) => {
  t.throws(
    () => defineFormatter({ render: 'EUR' as unknown as FormatterOptions['render'], produces: 'string' }),
    new FormatterDeclarationError('A formatter needs a "render" function.')
  )
})

t.test('every refusal is a FormatterDeclarationError, an Error of that name', async (t) => {
  const refused: Array<[string, FormatterOptions]> = [
    ['produces', { render, produces: 'date' } as unknown as FormatterOptions],
    ['render', { render: 'EUR' as unknown as FormatterOptions['render'], produces: 'string' }],
    ['type', { render, produces: 'string', schema: { type: 'string' } }]
  ]
  for (const [what, options] of refused) {
    let caught: unknown
    try {
      defineFormatter(options)
    } catch (error) {
      caught = error
    }
    t.ok(caught instanceof FormatterDeclarationError, `${what}: a FormatterDeclarationError`)
    t.ok(caught instanceof Error, `${what}: an Error`)
    t.equal((caught as Error | undefined)?.name, 'FormatterDeclarationError', `${what}: named for its class`)
  }
})
