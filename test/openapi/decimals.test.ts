// Decimals kept as text (prices, amounts) publish a `pattern` beside their `format: decimal`, so a
// contract tester that does not know the format still checks them; and every decimal the gateway
// serves matches it.
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import t, { type Test } from 'tap'
import { DECIMAL_PATTERN } from '../../src/formats.js'
import { DEMO_BOOKS, LEDGER_SIZE, ledgerEntry } from '../../demo/catalogue.js'
import { AUTH, buildApp } from '../helpers/app.js'
import { propertyRuns, propertySeed } from '../helpers/fast-check.js'
import { resolveRefs, type OpenApiDocument } from '../helpers/openapi.js'

const SEED = propertySeed(17_2026)
const NUM_RUNS = propertyRuns(500)

const { app } = await buildApp(t)
const document = (await app.inject({ url: '/openapi.json' })).json() as OpenApiDocument
const decimal = new RegExp(DECIMAL_PATTERN)
/** What a contract tester does with a format it does not know: nothing. Only the pattern checks. */
const formatBlind = new Ajv2020({ strict: false, validateFormats: false })

/** Every schema in `node` (at any depth) stating `format: decimal`, by where it is. */
function decimals (node: unknown, at = '#'): Array<[string, Record<string, unknown>]> {
  if (typeof node !== 'object' || node === null) return []
  const own: Array<[string, Record<string, unknown>]> = (node as { format?: unknown }).format === 'decimal' ? [[at, node as Record<string, unknown>]] : []
  return [...own, ...Object.entries(node).flatMap(([key, value]) => decimals(value, `${at}/${key}`))]
}

/** The plain list at `path` (GET, with a key), validated against the document by `formatBlind`. */
async function checkPlainList (t: Test, path: string) {
  const res = await app.inject({ url: path, headers: AUTH })
  t.equal(res.statusCode, 200, path)
  const schema = resolveRefs(document.paths[path].get.responses['200'].content?.['application/json'].schema, document) as object
  const validate = formatBlind.compile(schema)
  const body = res.json() as Array<Record<string, unknown>>
  t.ok(validate(body), `${path}: every row matches, by the pattern alone`, { errors: validate.errors })
  return { body, validate }
}

t.test('every decimal the document publishes carries the pattern', async (t) => {
  const found = decimals(document)
  t.ok(found.some(([at]) => at.endsWith('/Book/properties/price')), 'a book\'s price')
  t.ok(found.some(([at]) => at.endsWith('/LedgerEntry/properties/amount')), 'a ledger entry\'s amount')
  for (const [at, schema] of found) t.equal(schema.pattern, DECIMAL_PATTERN, at)
})

t.test('the decimals served in plain lists match the pattern, and a contract tester blind to the format refuses one that does not', async (t) => {
  const books = await checkPlainList(t, '/books')
  const ledger = await checkPlainList(t, '/ledger')
  t.equal(ledger.body.length, LEDGER_SIZE, 'the whole ledger')
  t.notOk(books.validate([{ ...books.body[0], price: '9,99' }]), 'a price written otherwise is refused')
  t.notOk(ledger.validate([{ ...ledger.body[0], amount: '1e3' }]), 'an amount in exponent form is refused')
})

t.test('the demo\'s stored decimals match the pattern: the prices, and the amount of any ledger entry the generator makes', async (t) => {
  for (const book of DEMO_BOOKS) t.match(book.price, decimal, `book ${book.id}`)
  // The served ledger is entries 1 to LEDGER_SIZE (checked whole above); the generator, for any id.
  fc.assert(fc.property(fc.integer({ min: 1, max: 1_000_000 }), (id) => decimal.test(ledgerEntry(id).amount)), { seed: SEED, numRuns: NUM_RUNS })
})
