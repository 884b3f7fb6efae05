// The declaration file's JSON Schema: what a file may say, published as schema/gateway.schema.json
// for editors, and checked at start. Tagged unions (a mount's kind, a formatter, a paging style) use
// `discriminator`, so a mistake is reported against the one branch its tag names, not every branch.
import Type, { type TSchema } from 'typebox'
import type { SortOptions } from '../core/sort.js'
import type { RowRule } from '../core/row-rule.js'
import type { UpstreamOptions } from '../sources/upstream/client.js'
import type { DocumentInfo } from '../../plugins/swagger.js'

/** Where the published copy lives, from the project's root. */
export const SCHEMA_PATH = 'schema/gateway.schema.json'

const text = (description: string): TSchema => Type.String({ description })
const whole = (description: string, minimum = 1): TSchema => Type.Integer({ minimum, description })
const closed = (properties: Record<string, TSchema>, options: Record<string, unknown> = {}): TSchema =>
  Type.Object(properties, { additionalProperties: false, ...options })
const ref = (name: string): TSchema => Type.Unsafe({ $ref: `#/definitions/${name}` })
const map = (value: TSchema, description: string): TSchema => Type.Record(Type.String(), value, { description })
/** A name a record, a source or an upstream is declared under, and referred to by. */
const NAME = '^[A-Za-z][A-Za-z0-9_-]*$'

/** A map whose keys are names: a record's name is its OpenAPI component's, a source's and an upstream's are referred to by. */
const named = (value: TSchema, description: string): TSchema => Type.Record(Type.String(), value, { propertyNames: { pattern: NAME }, description })
const oneOf = (values: readonly string[], description: string): TSchema => Type.Unsafe({ enum: values, description })

const describedMarking = (what: string): TSchema => Type.Unsafe({
  type: ['boolean', 'string'],
  description: `${what}: \`true\`, or the sentence agents are told about the field in place of its own description.`
})

const formatterBase = {
  description: Type.Optional(text('What agents are told about the formatted field, in place of its own description.')),
  example: Type.Optional(Type.Unsafe({ type: ['string', 'number', 'integer', 'boolean'], description: 'The example the agent schema shows (default: one rendered by the formatter).' }))
}

const Formatted = Type.Unsafe({
  description: 'Shown to agents through a built-in formatter: `money`, `number` or `date`.',
  type: 'object',
  discriminator: { propertyName: 'formatter' },
  oneOf: [
    closed({
      formatter: Type.Literal('money'),
      currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'The ISO 4217 code shown before the amount (`EUR`).' }),
      in: Type.Optional(oneOf(['units', 'cents'], '`units` (default): the value is the amount (decimal text, an integer or a real), written with at least the currency\'s decimals (`1.5` as `EUR 1.50`), no digit of it dropped; `cents`: the value is a whole number of hundredths.')),
      ...formatterBase
    }, { description: 'Money: `EUR 9.99`.' }),
    closed({
      formatter: Type.Literal('number'),
      decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: 'Digits after the point (default: as many as the value has, up to 3).' })),
      grouping: Type.Optional(Type.Boolean({ description: 'Thousands separated by commas (default true).' })),
      unit: Type.Optional(text('A word written after the number (`kg`).')),
      ...formatterBase
    }, { description: 'A number in English notation: `1,234.5`.' }),
    closed({
      formatter: Type.Literal('date'),
      format: Type.Optional(text('Luxon tokens (default `dd LLL yyyy`).')),
      ...formatterBase
    }, { description: 'The calendar day of a date or date-time (its UTC day), with luxon tokens.' })
  ]
})

const Timestamp = closed({
  format: Type.Optional(text('Luxon tokens (default `dd LLL yyyy HH:mm ZZ`), rendered in the gateway\'s TIME_ZONE.')),
  description: Type.Optional(text('What agents are told about the field, in place of its own description.'))
}, { description: 'A date-time shown to agents in the gateway\'s zone.' })

/** The markings, as keys of a field (at most one) or of an override (exactly one). */
const MARKINGS = {
  handle: Type.Optional(describedMarking('An identifier agents pass on to other tools, never formatted')),
  label: Type.Optional(describedMarking('The one field that names the record')),
  hidden: Type.Optional(Type.Boolean({ description: 'Never shown to an agent (presentation, not secrecy).' })),
  formatted: Type.Optional(Formatted),
  timestamp: Type.Optional(Timestamp)
}

const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'decimal', 'date', 'date-time', 'object', 'array'] as const

const ChoicePair = closed({
  value: Type.Unsafe({ type: ['string', 'number', 'integer', 'boolean', 'null'], description: 'The value as stored and served to plain clients.' }),
  display: text('What agents are shown for it.')
})

const constraints = {
  pattern: Type.Optional(text('A string field\'s regular expression.')),
  minLength: Type.Optional(whole('A string field\'s least length.', 0)),
  maxLength: Type.Optional(whole('A string field\'s greatest length.', 0)),
  minimum: Type.Optional(Type.Number({ description: 'A number field\'s least value.' })),
  maximum: Type.Optional(Type.Number({ description: 'A number field\'s greatest value.' }))
}

const Field = closed({
  type: Type.Optional(oneOf(FIELD_TYPES, 'The JSON type: `decimal` is a string holding a decimal number, `date` and `date-time` strings in ISO 8601. Either `type` or `choices`.')),
  choices: Type.Optional(Type.Unsafe({
    type: ['object', 'array'],
    description: 'The values the field takes, each with its display: `{ "draft": "Draft" }` for strings, or `[{ "value": 1, "display": "Low" }]`. Either `type` or `choices`.',
    minProperties: 1,
    additionalProperties: { type: 'string' },
    minItems: 1,
    items: ChoicePair
  })),
  description: Type.Optional(text('What the field holds, published in both variants.')),
  title: Type.Optional(text('A short title, published in both variants.')),
  nullable: Type.Optional(Type.Boolean({ description: 'Null is a value too.' })),
  optional: Type.Optional(Type.Boolean({ description: 'The field may be absent.' })),
  ...constraints,
  fields: Type.Optional(map(ref('Field'), 'An `object` field\'s own fields: a nested record.')),
  items: Type.Optional(ref('Field')),
  uniqueItems: Type.Optional(Type.Boolean({ description: 'An `array` field holds no value twice.' })),
  ...MARKINGS
}, { description: 'A field: its JSON type (or choices), and at most one marking saying what it is for.' })

const Override = closed({
  content: Type.Optional(Type.Literal(true, { description: 'Unmarked: served as it is.' })),
  ...MARKINGS
}, { minProperties: 1, maxProperties: 1, description: 'The one marking that replaces the field\'s on this mount.' })

const Affordance = closed({
  description: text('What the action does.'),
  when: closed({
    field: text('A top-level field of the record.'),
    equals: Type.Optional(Type.Unsafe({ type: ['string', 'number', 'integer', 'boolean', 'null'], description: 'Available when the field holds this value.' })),
    in: Type.Optional(Type.Array(Type.Unsafe({ type: ['string', 'number', 'integer', 'boolean', 'null'] }), { minItems: 1, description: 'Available when the field holds one of these values.' }))
  }, { description: 'When the action is available: the field `equals` a value, or is `in` a list.' }),
  otherwise: closed({ code: text('A stable machine-readable reason.'), reason: text('Why not, for a human.') }),
  action: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]*$', description: 'The action mount that acts on it, by name: every answer names it, and the app refuses to start unless it is mounted.' }))
}, { description: 'An action each row answers whether it affords.' })

const Record_ = closed({
  description: Type.Optional(text('What the record is.')),
  title: Type.Optional(text('A short title.')),
  fields: Type.Record(Type.String(), ref('Field'), { minProperties: 1, description: 'The fields, in the order they are served.' }),
  affordances: Type.Optional(map(Affordance, 'The actions a row affords, each answered per row.'))
}, { description: 'A record: the plain item schema, and the markings that make its agent item.' })

const ColumnMapping = Type.Unsafe({
  type: ['string', 'object'],
  description: 'The column a field is read from: its name, or `{ "column", "json", "omitNull", "cast", "stored" }`.',
  additionalProperties: false,
  properties: {
    column: { type: 'string', description: 'The column (default: the field\'s name).' },
    json: { type: 'boolean', description: 'The column holds JSON text, parsed into the value.' },
    omitNull: { type: 'boolean', description: 'A NULL leaves the field out of the row (for an `optional` field).' },
    cast: { enum: ['text'], description: 'Read the column as its text (`CAST(column AS TEXT)`): a `string` or `decimal` field over a number column.' },
    stored: { type: 'string', minLength: 1, description: 'How a `date-time` field\'s text or timestamp-without-time-zone column holds its instants: `UTC` (the default, as SQLite\'s CURRENT_TIMESTAMP writes them), an IANA zone whose wall time it holds (`Europe/Paris`), or `offset` (each value carries its own). Served as RFC 3339 with the instant unchanged.' }
  }
})

const TableSource = closed({
  table: text('A table or view of the database DATABASE_URL names.'),
  orderBy: Type.Unsafe({
    type: ['string', 'array'],
    items: { type: 'string' },
    minItems: 1,
    description: 'The columns rows are ordered by, a key no two rows share (`id`, or `["posted_at", "id"]`: a primary key or unique index among them); `-id` is descending.'
  }),
  unique: Type.Optional(Type.Array(Type.String(), { minItems: 1, description: 'Of a view, which publishes no keys: columns no two of its rows share, so that an order including them is stable.' })),
  fields: Type.Optional(map(ColumnMapping, 'Where a field is read from, where the column is not named like it.')),
  seek: Type.Optional(Type.Boolean({ description: 'Deep pages start from anchors of the order key instead of skipping rows: only for one ascending, unique, indexed column (a primary key).' }))
}, { description: 'Rows of a table or view, ordered by a stable key.' })

const positiveOf = (names: readonly string[], description: string): TSchema =>
  closed(Object.fromEntries(names.map((name) => [name, Type.Optional(whole(name, 0))])), { description })

// `${NAME}` in these descriptions is the file's own syntax, not a template.
/* eslint-disable no-template-curly-in-string */
const Upstream = closed({
  origin: text('Scheme, host and port (`https://api.example.com`); `${NAME}` is replaced by the environment variable NAME.'),
  headers: Type.Optional(map(Type.String(), 'Sent with every request: the gateway\'s own credentials (`"Bearer ${TOKEN}"`). Never logged.')),
  timeouts: Type.Optional(positiveOf(['connectMs', 'headersMs', 'bodyMs'], 'Per attempt, in milliseconds.')),
  deadlineMs: Type.Optional(whole('The most one call may take, retries included.')),
  retries: Type.Optional(positiveOf(['attempts', 'baseMs', 'maxMs'], 'Retries of a failed GET.')),
  breaker: Type.Optional(positiveOf(['failures', 'halfOpenAfterMs'], 'The circuit breaker.')),
  concurrency: Type.Optional(positiveOf(['limit', 'queue'], 'Calls in flight, and waiting.')),
  maxBytes: Type.Optional(whole('The largest body read.'))
}, { description: 'An upstream HTTP JSON API: one client, its pool, deadline, retries, breaker and cap.' })
/* eslint-enable no-template-curly-in-string */

const UpstreamPaging = Type.Unsafe({
  type: 'object',
  description: 'How the upstream pages its list.',
  discriminator: { propertyName: 'style' },
  oneOf: [
    closed({
      style: Type.Literal('page-link'),
      page: Type.Optional(text('The page number\'s parameter (default `page`).')),
      firstPage: Type.Optional(whole('The first page\'s number (default 1).', 0)),
      perPage: Type.Optional(text('The page size\'s parameter (default `per_page`).')),
      pageSize: Type.Optional(whole('The rows a page is asked for (default 30).'))
    }, { description: 'Numbered pages, the next named in a `Link` header (GitHub): no total.' }),
    closed({
      style: Type.Literal('offset'),
      offset: Type.Optional(text('The offset\'s parameter (default `offset`).')),
      limit: Type.Optional(text('The limit\'s parameter (default `limit`).')),
      pageSize: Type.Optional(whole('The rows a page is asked for (default 100).')),
      total: Type.Unsafe({
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        maxProperties: 1,
        properties: { header: { type: 'string' }, field: { type: 'string' } },
        description: 'Where the exact total is: `{ "header": "X-Total-Count" }` or `{ "field": "total" }`.'
      }),
      items: Type.Optional(text('The body\'s field holding the rows (default: the body is the array).'))
    }, { description: 'Offset and limit, the exact total in a header or the body.' }),
    closed({
      style: Type.Literal('cursor'),
      cursor: Type.Optional(text('The cursor\'s parameter (default `cursor`).')),
      limit: Type.Optional(text('The page size\'s parameter (default `limit`).')),
      pageSize: Type.Optional(whole('The rows a page is asked for (default 100).')),
      items: Type.Optional(text('The body\'s field holding the rows (default `data`).')),
      next: Type.Optional(text('The body\'s field holding the next cursor (default `next_cursor`).'))
    }, { description: 'An opaque cursor in the body: walked from the start, no total.' }),
    closed({
      style: Type.Literal('single'),
      items: Type.Optional(text('The body\'s field holding the rows (default: the body is the array).'))
    }, { description: 'The whole list in one response.' })
  ]
})

const UpstreamSource = closed({
  upstream: text('The upstream it is read from, as declared in `upstreams`.'),
  path: text('The path on the upstream; `{name}` is replaced by the mount\'s path parameter `name`, encoded.'),
  paging: Type.Optional(UpstreamPaging),
  item: Type.Optional(text('A record source: the body\'s field holding the record (default: the body is the record).')),
  fields: Type.Optional(map(Type.String(), 'Where a field is in the upstream\'s item, a dotted path (`pricing.amount_cents`).')),
  maxRows: Type.Optional(whole('The most rows a plain list walks (default 10000).'))
}, { description: 'An upstream endpoint: a list when it has `paging`, otherwise one record.' })

const Source = Type.Unsafe({
  description: 'Where rows come from: a `table` of the database, or an `upstream` endpoint.',
  if: { type: 'object', properties: { upstream: {} }, required: ['upstream'] },
  then: UpstreamSource,
  else: TableSource
})

const Param = closed({
  type: oneOf(['string', 'integer', 'number'], 'The parameter\'s JSON type.'),
  description: Type.Optional(text('What it names.')),
  ...constraints
}, { description: 'A path parameter.' })

const PERMISSIONS = ['signed-in', 'unrestricted'] as const

const route = {
  name: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]*$', description: 'The operation\'s name: its OpenAPI operationId and its MCP tool\'s name.' }),
  url: Type.String({ pattern: '^/', description: 'The path, parameters as `:name` (`/books/:id`).' }),
  summary: text('One line on what it serves.'),
  description: Type.Optional(text('More on what it serves.')),
  tags: Type.Optional(Type.Array(Type.String(), { description: 'The tags it is listed under.' }))
}

/** A check by name, or a scope a key must carry, as `API_KEYS` gives keys theirs: `scope:invoices:read`. */
const PERMISSION = `^(${PERMISSIONS.join('|')}|scope:[A-Za-z0-9_.:/-]+)$`

const permissions = Type.Array(Type.String({
  pattern: PERMISSION,
  description: 'A check: `signed-in`, `unrestricted`, or `scope:<name>` (a key carrying that scope).'
}), {
  minItems: 1,
  description: 'Every check must allow the caller: `signed-in` (a valid key), `unrestricted` (anyone) or `scope:<name>` (a key with that scope).'
})

const FILTER_KINDS = ['equals', 'range', 'prefix'] as const

const filters = map(oneOf(FILTER_KINDS, '`equals` (argument `<field>`), `range` (`<field>_min`, `<field>_max`) or `prefix` (`<field>_prefix`).'), 'Filter arguments by top-level field, applied by the source and counted before paging.')

const sort = closed({
  fields: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    description: 'The fields a caller may order the list by: top-level fields agents are shown, each holding one scalar (decimal text does not order as its numbers). Each takes `sort=<field>` (ascending) and `sort=-<field>` (descending).'
  }),
  default: Type.Optional(Type.String({ minLength: 1, description: 'The order served when a call sends none: `<field>` or `-<field>`, of one of `fields` (default: the source\'s own orderBy).' }))
}, { description: 'The argument `sort`, a closed choice published with the others: the source orders by the field\'s column, then by its orderBy, which breaks the ties; a NULL comes first ascending, last descending. A table source only: an upstream cannot sort.' })

const rowRule = Type.Record(Type.String(), closed({
  claim: Type.String({ minLength: 1, description: 'The claim of the caller\'s identity the field must equal: a token\'s verified claim (`org_id`, or a namespaced `https://example.com/org`), or one configured with its key in `API_KEYS`.' })
}), {
  minProperties: 1,
  description: 'Which rows each caller may read: by top-level field, the claim its value must equal (`{ "tenant_id": { "claim": "org_id" } }`). Applied by the source before counting, on every transport; never an argument. A caller whose identity lacks the claim is refused (403); a record of another caller is not found (404). Needs a signed-in caller.'
})

const mountBase = {
  ...route,
  record: text('The record it serves, as declared in `records`.'),
  source: text('Where its rows come from, as declared in `sources`.'),
  permissions,
  overrides: Type.Optional(map(Override, 'Markings replaced on this mount only, by top-level field.')),
  schemaName: Type.Optional(Type.String({ pattern: NAME, description: 'The base of its agent components\' names, when overrides make them differ from another mount\'s.' })),
  rowRule: Type.Optional(rowRule)
}

const params = (description: string): TSchema => Type.Record(Type.String(), Param, { minProperties: 1, description })

const ListPaging = Type.Unsafe({
  type: 'object',
  description: 'How an agent pages the list (default: the page style, 100 per page).',
  discriminator: { propertyName: 'style' },
  oneOf: [
    closed({
      style: Type.Literal('page'),
      ceiling: Type.Optional(whole('The most items a page holds (default 100).')),
      defaultLimit: Type.Optional(whole('Items per page when no limit is sent (default 100).'))
    }),
    closed({
      style: Type.Literal('offset'),
      unit: Type.String({ pattern: '^[a-z][a-z0-9_]*$', description: 'The noun the items are counted in: `entries` publishes `total_entries`.' }),
      ceiling: Type.Optional(whole('The most items a page holds (default 100).')),
      defaultLimit: Type.Optional(whole('The limit when none is sent (default 50).'))
    })
  ]
})

const Mount = Type.Unsafe({
  type: 'object',
  description: 'A route: a record served from a source at a URL, to plain clients and agents, over HTTP and MCP.',
  discriminator: { propertyName: 'kind' },
  oneOf: [
    closed({ kind: Type.Literal('list'), ...mountBase, paging: Type.Optional(ListPaging), filters: Type.Optional(filters), sort: Type.Optional(sort) }, { description: 'A list: a bare array to a plain client, a page to an agent.' }),
    closed({
      kind: Type.Literal('retrieve'),
      ...mountBase,
      params: params('The path parameters naming the record; on a table, each is the field of its name.')
    }, { description: 'One record, named by its path parameters.' }),
    closed({
      kind: Type.Literal('text'),
      ...route,
      source: text('The table whose row holds the text, as declared in `sources`.'),
      permissions,
      text: text('The column holding the text; its lines are served.'),
      params: Type.Optional(params('The path parameters naming the row; each is the column of its name (or as the source maps it).')),
      paging: Type.Optional(closed({
        style: Type.Literal('lines'),
        ceiling: Type.Optional(whole('The most lines a window holds (default 200).'))
      }, { description: 'How an agent reads the text: windows of lines.' }))
    }, { description: 'A text held in a column: whole as text/plain to a plain client, a window of lines to an agent.' }),
    closed({
      kind: Type.Literal('bytes'),
      ...route,
      source: text('The table whose row holds the bytes, as declared in `sources`.'),
      permissions,
      bytes: text('The column holding the bytes (a blob, a bytea; a text column\'s text is its UTF-8 bytes). NULL is no content: 404.'),
      mediaType: Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\\s*;.*)?$',
        description: 'The content\'s media type (`image/png`): what a plain client is served; a `text/*` one (UTF-8) is served to agents as text, anything else as base64.'
      }),
      params: Type.Optional(params('The path parameters naming the row; each is the column of its name (or as the source maps it).')),
      paging: Type.Optional(closed({
        style: Type.Literal('bytes'),
        ceiling: Type.Optional(whole('The most bytes a window holds (default 65536); a larger max_bytes is refused, not clamped.', 4)),
        defaultBytes: Type.Optional(whole('The bytes a window holds when no max_bytes is sent (default 16384, at most the ceiling).', 4))
      }, { description: 'How an agent reads the bytes: windows of them.' }))
    }, { description: 'Bytes held in a column (an image, a file): whole or by range in their own media type to a plain client, a window of bytes to an agent.' }),
    closed({
      kind: Type.Literal('action'),
      ...route,
      method: Type.Optional(oneOf(['POST', 'PUT', 'PATCH', 'DELETE'], 'The method it is called with (default POST).')),
      permissions,
      params: params('The path parameters: on a table, naming the row it acts on, each the field of its name (or as the source maps it); on an upstream, filling its source\'s path.'),
      body: Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), ref('Field'), { description: 'The body\'s fields, with their types and bounds: JSON, closed (any other field is refused by name). On a table, each is a statement\'s `:name`; to an upstream, the body is sent as it came.' }),
      maxBodyBytes: Type.Optional(whole('The largest body it takes, in bytes (default 16384).', 2)),
      record: text('What it answers with, as declared in `records`: the row it acts on, or the upstream\'s answer.'),
      source: text('A table source: the row is read from it before the statements (its affordance checked on it) and after (the answer). An upstream source: the call is sent to its path (each `{name}` a path parameter) with the action\'s method and body, and its answer read as the record.'),
      affords: Type.Optional(text('The record\'s affordance it acts on (on a table source), which must name this action: checked again on the row as the transaction reads it (409 when it no longer holds, nothing done).')),
      statements: Type.Optional(Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'On a table source, the SQL it runs, in order, in one transaction: all commit together or none does. `:name` is a parameter (a path parameter, a body field, or `now`, the instant in UTC to the second), never text pasted in.'
      })),
      creates: Type.Optional(Type.Boolean({ description: 'It creates what it answers with: 201 rather than 200.' })),
      destructive: Type.Optional(Type.Boolean({ description: 'It may destroy or undo something (MCP\'s destructiveHint; default true).' })),
      idempotent: Type.Optional(Type.Boolean({ description: 'Calling it twice does no more than once (MCP\'s idempotentHint; default false).' }))
    }, { description: 'An action: on one row of a table, its statements run in one transaction and it answers the row as it is then; or a call of an upstream API, answered as the upstream answers it.' })
  ]
})

export const DeclarationFileSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'audience-gateway declaration file',
  ...closed({
    $schema: Type.Optional(text('This schema, for editors.')),
    info: Type.Optional(closed({
      title: text('The API\'s name.'),
      version: text('The API\'s version (not the gateway\'s).'),
      description: Type.Optional(text('What it serves, in a sentence or two.')),
      license: Type.Optional(Type.Unsafe({
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: text('The licence\'s name (`Apache 2.0`).'),
          identifier: Type.String({ pattern: '^[A-Za-z0-9.+()-]+( (AND|OR|WITH) [A-Za-z0-9.+()-]+)*$', description: 'Its SPDX identifier or expression (`Apache-2.0`).' }),
          url: Type.String({ pattern: '^https?://[^\\s]+$', description: 'Where its text is (an absolute http or https URL).' })
        },
        not: { properties: { identifier: {}, url: {} }, required: ['identifier', 'url'], description: 'must have "identifier" or "url", not both' },
        description: 'The licence the API is offered under: a name, with an SPDX identifier or a URL (not both). Left out, the document names none.'
      }))
    }, { description: 'What the OpenAPI document says of this API at its top (default: the gateway\'s own name and version).' })),
    tags: Type.Optional(Type.Array(closed({ name: Type.String(), description: Type.String() }), { description: 'The tags mounts use, listed at the top of the OpenAPI document.' })),
    records: named(Record_, 'The records, by component name (`Book`): a letter, then letters, digits, `_` or `-`.'),
    upstreams: Type.Optional(named(Upstream, 'The upstream APIs, by name.')),
    sources: named(Source, 'Where rows come from, by name.'),
    mounts: Type.Array(Mount, { description: 'The routes, in the order they are served and documented.' })
  }, { description: 'One gateway, declared: records, sources and mounts.' }),
  definitions: { Field }
} as const

// The file's shape, as the compiler reads it once the schema has accepted it.
export type JsonScalar = string | number | boolean | null

export interface FormattedMarking {
  readonly formatter: 'money' | 'number' | 'date'
  readonly currency?: string
  readonly in?: 'units' | 'cents'
  readonly decimals?: number
  readonly grouping?: boolean
  readonly unit?: string
  readonly format?: string
  readonly description?: string
  readonly example?: string | number | boolean
}

export interface Markings {
  readonly content?: true
  readonly handle?: boolean | string
  readonly label?: boolean | string
  readonly hidden?: boolean
  readonly formatted?: FormattedMarking
  readonly timestamp?: { readonly format?: string, readonly description?: string }
}

export interface FieldDeclaration extends Markings {
  readonly type?: typeof FIELD_TYPES[number]
  readonly choices?: Readonly<Record<string, string>> | ReadonlyArray<{ readonly value: JsonScalar, readonly display: string }>
  readonly description?: string
  readonly title?: string
  readonly nullable?: boolean
  readonly optional?: boolean
  readonly pattern?: string
  readonly minLength?: number
  readonly maxLength?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly fields?: Readonly<Record<string, FieldDeclaration>>
  readonly items?: FieldDeclaration
  readonly uniqueItems?: boolean
}

export interface AffordanceDeclaration {
  readonly description: string
  readonly action?: string
  readonly when: { readonly field: string, readonly equals?: JsonScalar, readonly in?: readonly JsonScalar[] }
  readonly otherwise: { readonly code: string, readonly reason: string }
}

export interface RecordDeclarationEntry {
  readonly description?: string
  readonly title?: string
  readonly fields: Readonly<Record<string, FieldDeclaration>>
  readonly affordances?: Readonly<Record<string, AffordanceDeclaration>>
}

export type ColumnMapping = string | { readonly column?: string, readonly json?: boolean, readonly omitNull?: boolean, readonly cast?: 'text', readonly stored?: string }

export interface TableSourceDeclaration {
  readonly table: string
  readonly orderBy: string | readonly string[]
  readonly unique?: readonly string[]
  readonly fields?: Readonly<Record<string, ColumnMapping>>
  readonly seek?: boolean
}

export type UpstreamPagingDeclaration =
  | { readonly style: 'page-link', readonly page?: string, readonly firstPage?: number, readonly perPage?: string, readonly pageSize?: number }
  | { readonly style: 'offset', readonly offset?: string, readonly limit?: string, readonly pageSize?: number, readonly total: { readonly header: string } | { readonly field: string }, readonly items?: string }
  | { readonly style: 'cursor', readonly cursor?: string, readonly limit?: string, readonly pageSize?: number, readonly items?: string, readonly next?: string }
  | { readonly style: 'single', readonly items?: string }

export interface UpstreamSourceDeclaration {
  readonly upstream: string
  readonly path: string
  readonly paging?: UpstreamPagingDeclaration
  readonly item?: string
  readonly fields?: Readonly<Record<string, string>>
  readonly maxRows?: number
}

export type SourceDeclaration = TableSourceDeclaration | UpstreamSourceDeclaration

/** What a file says of an upstream: the client's own options, but where its failures are logged. */
export type UpstreamDeclaration = Omit<UpstreamOptions, 'log'>

export interface ParamDeclaration {
  readonly type: 'string' | 'integer' | 'number'
  readonly description?: string
  readonly pattern?: string
  readonly minLength?: number
  readonly maxLength?: number
  readonly minimum?: number
  readonly maximum?: number
}

interface MountDeclarationBase {
  readonly name: string
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly record: string
  readonly source: string
  readonly permissions: readonly PermissionDeclaration[]
  readonly overrides?: Readonly<Record<string, Markings>>
  readonly schemaName?: string
  readonly rowRule?: RowRule
}

export type PermissionDeclaration = typeof PERMISSIONS[number] | `scope:${string}`

export type ListPagingDeclaration =
  | { readonly style: 'page', readonly ceiling?: number, readonly defaultLimit?: number }
  | { readonly style: 'offset', readonly unit: string, readonly ceiling?: number, readonly defaultLimit?: number }

/** What a mount of one record's content (its text, its bytes) declares besides the content itself. */
interface ContentMountDeclaration {
  readonly name: string
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly source: string
  readonly permissions: readonly PermissionDeclaration[]
  readonly params?: Readonly<Record<string, ParamDeclaration>>
}

export interface TextMountDeclaration extends ContentMountDeclaration {
  readonly kind: 'text'
  readonly text: string
  readonly paging?: { readonly style: 'lines', readonly ceiling?: number }
}

export interface BytesMountDeclaration extends ContentMountDeclaration {
  readonly kind: 'bytes'
  readonly bytes: string
  readonly mediaType: string
  readonly paging?: { readonly style: 'bytes', readonly ceiling?: number, readonly defaultBytes?: number }
}

export type RecordMountDeclaration =
  | MountDeclarationBase & { readonly kind: 'list', readonly paging?: ListPagingDeclaration, readonly filters?: Readonly<Record<string, typeof FILTER_KINDS[number]>>, readonly sort?: SortOptions }
  | MountDeclarationBase & { readonly kind: 'retrieve', readonly params: Readonly<Record<string, ParamDeclaration>> }

export interface ActionMountDeclaration {
  readonly kind: 'action'
  readonly name: string
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly method?: 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  readonly permissions: readonly PermissionDeclaration[]
  readonly params: Readonly<Record<string, ParamDeclaration>>
  readonly body: Readonly<Record<string, FieldDeclaration>>
  readonly maxBodyBytes?: number
  readonly record: string
  readonly source: string
  readonly affords?: string
  readonly statements?: readonly string[]
  readonly creates?: boolean
  readonly destructive?: boolean
  readonly idempotent?: boolean
}

export type MountDeclaration = RecordMountDeclaration | TextMountDeclaration | BytesMountDeclaration | ActionMountDeclaration

export interface DeclarationFile {
  readonly info?: DocumentInfo
  readonly tags?: ReadonlyArray<{ readonly name: string, readonly description: string }>
  readonly records: Readonly<Record<string, RecordDeclarationEntry>>
  readonly upstreams?: Readonly<Record<string, UpstreamDeclaration>>
  readonly sources: Readonly<Record<string, SourceDeclaration>>
  readonly mounts: readonly MountDeclaration[]
}
