// Generated requests for one documented operation: path parameters, query strings and headers,
// mostly what a careless or hostile client sends, often enough what a careful one sends.
import fc from 'fast-check'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import type { DocumentedOperation } from '../helpers/openapi.js'

export interface GeneratedRequest {
  /** The URL as sent: path parameters and query encoded (or deliberately not). */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

export interface RequestSettings {
  /** The bearer key the app accepts. */
  readonly key: string
  /** Values of path parameters that name existing records, by parameter name. */
  readonly existing: Readonly<Record<string, readonly string[]>>
}

/** A request to `operation`: its path template filled, a query, and headers. */
export function requestFor ({ path, operation }: DocumentedOperation, settings: RequestSettings): fc.Arbitrary<GeneratedRequest> {
  const parameters = operation.parameters ?? []
  const known = parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name)
  const names = parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name)
  const pathValues = fc.tuple(...names.map((name) => pathValue(settings.existing[name] ?? [])))
  return fc.record({ values: pathValues, query: query(known), headers: headers(settings.key) }).map(({ values, query, headers }) => ({
    url: names.reduce((url, name, i) => url.replace(`{${name}}`, values[i]), path) + (query === '' ? '' : `?${query}`),
    headers
  }))
}

/**
 * A request a careful client sends: existing records, a valid key, one audience asked for in one of
 * the ways it can be, and for an agent the operation's query parameters as integers within their
 * documented bounds (huge ones up to the maximum included, which are clamped, not refused), or,
 * for a filter, one of its listed values, an instant, a day or some text.
 */
export function wellFormedRequestFor ({ path, operation }: DocumentedOperation, settings: RequestSettings): fc.Arbitrary<GeneratedRequest & { audience: 'plain' | 'agent' }> {
  const parameters = operation.parameters ?? []
  const names = parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name)
  const pathValues = fc.tuple(...names.map((name) => fc.constantFrom(...settings.existing[name] ?? ['1'])))
  const queryParameters = parameters.filter((parameter) => parameter.in === 'query')
  const queryNames = queryParameters.map((parameter) => parameter.name)
  const values = queryParameters.map((parameter) => fc.option(wellFormedValue(parameter.schema ?? {}), { nil: undefined }))
  const agent = fc.record({
    audience: fc.constant('agent' as const),
    query: fc.tuple(...values).map((sent) => queryOf(queryNames, inOrder(queryNames, sent))),
    headers: fc.constantFrom<Record<string, string>>(
      { 'x-audience': 'agent' },
      { accept: AGENT_MEDIA_TYPE },
      { accept: `${AGENT_MEDIA_TYPE};q=1, application/json;q=0.5, */*;q=0.1` },
      { accept: 'application/json, text/plain', 'x-audience': 'Agent' }
    )
  })
  const plain = fc.record({
    audience: fc.constant('plain' as const),
    query: fc.constant(''),
    headers: fc.constantFrom<Record<string, string>>({}, { accept: '*/*' }, { accept: 'application/json, text/plain, image/*' }, { accept: `*/*, ${AGENT_MEDIA_TYPE};q=0.5` })
  })
  // Only a negotiated operation (one with an agent variant) serves agents at all.
  const negotiated = operation.responses['200']?.content?.[AGENT_MEDIA_TYPE] !== undefined
  const variant = negotiated ? fc.oneof({ weight: 4, arbitrary: agent }, { weight: 1, arbitrary: plain }) : plain
  return fc.record({ values: pathValues, variant }).map(({ values, variant }) => ({
    audience: variant.audience,
    url: names.reduce((url, name, i) => url.replace(`{${name}}`, values[i]), path) + (variant.query === '' ? '' : `?${variant.query}`),
    headers: { authorization: `Bearer ${settings.key}`, ...variant.headers }
  }))
}

/** A value a parameter's schema admits: listed values, instants and days of the demo's years, text, or integers within bounds. */
function wellFormedValue (schema: { minimum?: unknown, maximum?: unknown, enum?: readonly unknown[], format?: unknown, type?: unknown }): fc.Arbitrary<string> {
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum.map(String))
  const instant = fc.integer({ min: Date.UTC(2025, 11, 1) / 1000, max: Date.UTC(2026, 11, 31) / 1000 }).map((seconds) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'))
  if (schema.format === 'date-time') return instant
  if (schema.format === 'date') return instant.map((at) => at.slice(0, 10))
  if (schema.type === 'string') return fc.constantFrom('INV-', 'INV-1', 'Entry', 'A', 'x')
  return integerWithin(Number(schema.minimum ?? -1000), BigInt(String(schema.maximum ?? 10n ** 20n)))
}

/** A request with one parameter given an odd value, and which parameter that is. */
export interface OddValueRequest extends GeneratedRequest {
  readonly parameter: string
  readonly in: 'path' | 'query'
}

/**
 * A careful client's request (a valid key, existing records, the agent audience where there is one)
 * with one parameter, path or query, declared or not (`colour`), given an odd value.
 */
export function oddValueRequestFor ({ path, operation }: DocumentedOperation, settings: RequestSettings): fc.Arbitrary<OddValueRequest> {
  const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path' || parameter.in === 'query')
  const candidates = [...parameters, { in: 'query', name: 'colour' }]
  const negotiated = operation.responses['200']?.content?.[AGENT_MEDIA_TYPE] !== undefined
  const headers = { authorization: `Bearer ${settings.key}`, ...(negotiated ? { 'x-audience': 'agent' } : {}) }
  return fc.constantFrom(...candidates).chain((odd) => {
    const value = odd.in === 'path' ? pathValue(settings.existing[odd.name] ?? []) : oddValue()
    return value.map((text) => {
      const filled = parameters.filter((parameter) => parameter.in === 'path')
        .reduce((url, { name }) => url.replace(`{${name}}`, name === odd.name ? text : settings.existing[name]?.[0] ?? '1'), path)
      return { url: odd.in === 'path' ? filled : `${filled}?${encodeURIComponent(odd.name)}=${text}`, headers, parameter: odd.name, in: odd.in as 'path' | 'query' }
    })
  })
}

/** Odd values for one parameter, numbers a parser may read as numbers weighted up. */
function oddValue (): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer().map(String) },
    { weight: 4, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
    { weight: 2, arbitrary: fc.oneof(fc.double().map(String), fc.constantFrom('1.5', '1.0', '.5', '1e-3', '2.', '1,5', '0x10', '1_000', '0b1', '00012')) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '%20', '+') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_JUNK) }
  )
}

/** A line window ends where it starts or later (an end before the start is refused, rightly). */
function inOrder (names: readonly string[], values: ReadonlyArray<string | undefined>): Array<string | undefined> {
  const start = names.indexOf('start_line')
  const end = names.indexOf('end_line')
  if (start === -1 || end === -1 || values[start] === undefined || values[end] === undefined) return [...values]
  const [low, high] = [BigInt(values[start]), BigInt(values[end])].sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
  return values.map((value, i) => i === start ? String(low) : i === end ? String(high) : value)
}

function queryOf (names: readonly string[], values: ReadonlyArray<string | undefined>): string {
  return names.flatMap((name, i) => values[i] === undefined ? [] : [`${encodeURIComponent(name)}=${values[i]}`]).join('&')
}

/** Integers from `minimum` to `maximum`: mostly near the minimum (small pages are cheap), some past the ceilings, some huge. */
function integerWithin (minimum: number, maximum: bigint): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: minimum, max: minimum + 60 }).map(String) },
    { weight: 1, arbitrary: fc.integer({ min: minimum, max: minimum + 1300 }).map(String) },
    { weight: 1, arbitrary: fc.bigInt({ min: BigInt(minimum), max: maximum }).map(String) },
    { weight: 1, arbitrary: fc.constant(maximum.toString()) }
  )
}

/** A path parameter: existing ids, missing ids, non-integers, huge numbers, junk. */
function pathValue (existing: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    ...(existing.length === 0 ? [] : [{ weight: 6, arbitrary: fc.constantFrom(...existing) }]),
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 1000 }).map(String) },
    { weight: 2, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
    { weight: 2, arbitrary: fc.constantFrom('abc', '1.5', '1.0', '1e3', '0x10', '-0', '+1', '%201', '1%20', '%00', '١', 'null', 'true') },
    { weight: 1, arbitrary: fc.constantFrom('%', '%ZZ', '%E0%A4%A', '..', '%2F', '%2e%2e') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).map(encodeURIComponent) },
    // Past the router's parameter length (100): refused before any route runs.
    { weight: 1, arbitrary: fc.integer({ min: 101, max: 140 }).map((length) => '9'.repeat(length)) }
  )
}

const HUGE_NUMBERS = ['2147483648', '9007199254740993', '99999999999999999999', '1e20', '1e308', '1e400', '-1e400', 'Infinity', '-Infinity', 'NaN'] as const

/** A query string: nothing, or pairs of known and unknown names, repeated keys included. */
function query (known: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    ...(known.length === 0 ? [] : [{ weight: 6, arbitrary: fc.constantFrom(...known).map(encodeURIComponent) }]),
    { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_NAMES).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_JUNK) }
  )
  const pair = fc.tuple(name, fc.option(queryValue(), { nil: undefined, freq: 10 }))
    .map(([key, value]) => value === undefined ? key : `${key}=${value}`)
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 5, arbitrary: fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => pairs.join('&')) }
  )
}

const UNKNOWN_NAMES = ['colour', 'PAGE', 'Limit', 'page[]', 'page.x', 'id', 'sort', 'fields', 'audience', 'x-audience', 'q'] as const
/** Names an object already answers to: a map built from the query must not trip over them. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__[x]', 'prototype'] as const
/** Sent as they are: bad escapes, separators, nothing. */
const RAW_JUNK = ['%', '%ZZ', '%E0%A4%A', '%00', '%FF', '+', '=', '&', '%26', ';', '[', '%5B%5D'] as const

/** A query value: integers (mostly small, to reach real pages), huge, negative, float, empty, unicode, junk. */
function queryValue (): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0, max: 600 }).map(String) },
    { weight: 2, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
    { weight: 2, arbitrary: fc.integer({ min: -2_000_000_000, max: -1 }).map(String) },
    { weight: 2, arbitrary: fc.oneof(fc.double({ noNaN: true }).map(String), fc.constantFrom('1.5', '1.0', '.5', '1e-3', '2.', '1,5')) },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_JUNK, '%201', '1%00', '1+1', ' 1', '0x1F', 'true') }
  )
}

/** Headers: Accept lists, X-Audience values and credentials, each sometimes absent. */
function headers (key: string): fc.Arbitrary<Record<string, string>> {
  return fc.record({
    accept: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 6, arbitrary: acceptList() },
      { weight: 1, arbitrary: headerText() }
    ),
    'x-audience': fc.oneof(
      { weight: 5, arbitrary: fc.constant(undefined) },
      { weight: 4, arbitrary: fc.constant('agent') },
      { weight: 2, arbitrary: fc.constantFrom('Agent', 'AGENT', ' agent ', '', 'plain', 'robot', 'agents', 'agent, agent', 'agent;q=1', 'null') },
      { weight: 1, arbitrary: headerText() }
    ),
    authorization: fc.oneof(
      { weight: 6, arbitrary: fc.constant(`Bearer ${key}`) },
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: fc.constantFrom(...malformedCredentials(key)) },
      { weight: 1, arbitrary: headerText().map((text) => `Bearer ${text}`) }
    )
  }).map(present)
}

function malformedCredentials (key: string): string[] {
  return [
    'Bearer', 'Bearer ', 'Basic x', `Basic ${Buffer.from(`user:${key}`).toString('base64')}`, 'Bearer wrong',
    `Bearer  ${key}`, `  Bearer ${key}  `, `bearer ${key}`, `BEARER ${key}`, `Bearer ${key} extra`, `Bearer ${key}x`,
    `Bearer ${key.slice(0, -1)}`, `Token ${key}`, `Bearer\t${key}`, key, '', `Bearer "${key}"`, `Bearer ${key},Bearer ${key}`
  ]
}

/** An Accept list of one to four media ranges, each with parameters (q-values among them). */
function acceptList (): fc.Arbitrary<string> {
  const parameter = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('0', '0.0', '0.001', '0.5', '0.9', '1', '1.000').map((q) => `q=${q}`) },
    { weight: 1, arbitrary: fc.constantFrom('q=2', 'q=-1', 'q=abc', 'q=', 'q', 'Q=0.5', ' q = 0.5 ') },
    { weight: 2, arbitrary: fc.constantFrom('charset=utf-8', 'level=1', 'version="1,2"', 'profile="a;b"', 'x=', '=') }
  )
  const entry = fc.tuple(fc.constantFrom(...MEDIA_RANGES), fc.array(parameter, { maxLength: 2 }))
    .map(([range, parameters]) => [range, ...parameters].join(';'))
  return fc.tuple(fc.array(entry, { minLength: 1, maxLength: 4 }), fc.constantFrom(', ', ',', ' , '))
    .map(([entries, separator]) => entries.join(separator))
}

const MEDIA_RANGES = [
  'application/json', AGENT_MEDIA_TYPE, 'text/plain', '*/*', 'application/*', 'text/*', 'text/csv', 'application/xml',
  'application/problem+json', 'APPLICATION/JSON', 'Application/Vnd.Audience-Gateway.Agent+JSON', 'image/png', 'junk', '',
  'application', '*/json', 'application/vnd.audience-gateway.agent'
] as const

/**
 * Arbitrary text as a header carries it: a client's UTF-8 bytes read one per character (Latin-1),
 * as Node reads them; the characters no header may hold (controls) are left out.
 */
function headerText (): fc.Arbitrary<string> {
  return fc.string({ unit: 'grapheme', maxLength: 12 })
    .map((text) => Buffer.from(text, 'utf8').toString('latin1').replace(/[^\t\x20-\x7e\x80-\xff]/g, ''))
}

/** The headers that are set; an absent one is not sent at all. */
function present (headers: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined))
}
