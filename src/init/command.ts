// `audience-gateway init`: a first declaration file, drafted from what already describes the data,
// written as YAML with every guess a comment above the key it concerns. Each way of drafting is an
// option naming its input (`--from-openapi FILE|URL`); exactly one is given.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ParseArgsConfig } from 'node:util'
import { EXIT, plural, type Io } from '../command-io.js'
import { DraftError, renderDraft, type Draft } from './draft.js'
import { draftFromDatabase } from './from-db.js'
import { draftFromOpenApi } from './from-openapi.js'
import { readDocument } from './read-input.js'

/** A way of drafting: what its option's value names, and the draft made from it. */
interface DraftMode {
  readonly input: string
  readonly draft: (input: string, values: Readonly<Record<string, unknown>>) => Promise<Draft>
  /** The input as it may be written in the file and on the terminal (a URL without its password). */
  readonly shown: (input: string) => string
  /** What the draft is served with: the environment `check` and `serve` need set. */
  readonly environment?: (input: string, values: Readonly<Record<string, unknown>>) => string
}

/** The ways of drafting, by the option that names each one's input. */
const MODES: Readonly<Record<string, DraftMode>> = {
  'from-openapi': { input: 'FILE|URL', draft: async (input) => draftFromOpenApi(await readDocument(input)), shown: shownUrl },
  'from-db': {
    input: 'URL',
    draft: async (input, values) => await draftFromDatabase(input, {
      ...(typeof values.tables === 'string' ? { tables: values.tables.split(',').map((name) => name.trim()).filter((name) => name !== '') } : {}),
      ...(typeof values.schema === 'string' ? { schema: values.schema } : {})
    }),
    shown: shownUrl,
    environment: (input, values) => `DATABASE_URL=${quoted(shownUrl(typeof values.schema === 'string' ? withSchema(input, values.schema) : input))} `
  }
}

export const INIT_USAGE = `audience-gateway init ${Object.entries(MODES).map(([option, mode]) => `--${option} ${mode.input}`).join(' | ')} [--tables A,B] [--schema NAME] [--out FILE] [--force]`

export const INIT_OPTIONS = {
  ...Object.fromEntries(Object.keys(MODES).map((option) => [option, { type: 'string' }])),
  tables: { type: 'string' },
  schema: { type: 'string' },
  out: { type: 'string', short: 'o' },
  force: { type: 'boolean' }
} satisfies NonNullable<ParseArgsConfig['options']>

export const INIT_HELP = `Drafts a declaration file from what already describes the data, so a first file writes itself. Every guess (a paging style, a handle, a label, a hidden field, a timestamp, a display) and everything it could not draft is a # comment above the key it concerns: read them, then check and serve the file.

  --from-openapi FILE|URL  an upstream's OpenAPI 3.0 or 3.1 document (JSON or YAML; a path, or an http(s) URL): each list operation an upstream list, each get-by-id a record, one upstream
  --from-db URL            a database: a SQLite file (never created) or a postgres:// URL; per table or view one record, one source and a list and a record mount, each column a field of its type and nullability, the key as handle and order, CHECK ... IN lists and enums as choices
  --tables A,B             --from-db: only these tables and views, in this order (default: all)
  --schema NAME            --from-db on PostgreSQL: the schema read (default: the search_path's first)
  --out FILE               where the draft is written (default gateway.yaml; a .yaml or .yml file, since the guesses are comments; - for stdout)
  --force                  overwrite FILE if it exists (otherwise it is refused)`

/** What `init` was asked: the way of drafting and its input, and where the draft goes. */
export interface InitAsked {
  readonly mode: string
  readonly input: string
  readonly out: string
  readonly force: boolean
  readonly values: Readonly<Record<string, unknown>>
}

/** The options read as one draft asked for, or what is wrong with them (a usage error). */
export function initAsked (values: Readonly<Record<string, unknown>>): InitAsked | { usage: string } {
  const given = Object.keys(MODES).filter((option) => values[option] !== undefined)
  if (given.length !== 1) {
    const modes = Object.entries(MODES).map(([option, mode]) => `--${option} ${mode.input}`).join(' or ')
    return { usage: given.length === 0 ? `say what to draft from: ${modes}.` : `one of ${given.map((option) => `--${option}`).join(', ')} at a time.` }
  }
  const foreign = ['tables', 'schema'].filter((option) => values[option] !== undefined && given[0] !== 'from-db')
  if (foreign.length > 0) return { usage: `${foreign.map((option) => `--${option}`).join(' and ')} ${foreign.length === 1 ? 'is' : 'are'} for --from-db only.` }
  const out = typeof values.out === 'string' ? values.out : 'gateway.yaml'
  if (out !== '-' && !/\.ya?ml$/i.test(out)) return { usage: `--out names a .yaml or .yml file (the guesses are YAML comments), or - for stdout; got ${JSON.stringify(out.slice(0, 80))}.` }
  return { mode: given[0], input: String(values[given[0]]), out, force: values.force === true, values }
}

/** Drafts, writes the draft, and says on stderr what it holds and what to do next. */
export async function init (asked: InitAsked, io: Io): Promise<number> {
  let draft: Draft
  try {
    draft = await MODES[asked.mode].draft(asked.input, asked.values)
  } catch (error) {
    // Every failure to read the input is a DraftError, said in one line.
    io.stderr.write(`Cannot draft: ${shown(asked)} ${withoutPassword((error as DraftError).message, asked.input)}\n`)
    return EXIT.invalid
  }
  const text = renderDraft(draft, headerOf(asked))
  if (asked.out === '-') {
    io.stdout.write(text)
  } else {
    try {
      await writeFile(asked.out, text, { flag: asked.force ? 'w' : 'wx' })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      io.stderr.write(code === 'EEXIST' ? `${asked.out} exists: --force overwrites it.\n` : `Cannot write ${asked.out} (${String(code)}).\n`)
      return EXIT.invalid
    }
  }
  io.stderr.write(summaryOf(draft, asked))
  return EXIT.ok
}

/** What the file says first: how it was made, where the guesses are, and the schema for editors. */
function headerOf (asked: InitAsked): string {
  const schema = schemaFile()
  const from = resolve(asked.out === '-' ? '.' : dirname(resolve(asked.out)))
  return [
    `yaml-language-server: $schema=${relative(from, schema)}`,
    `Drafted by \`audience-gateway init --${asked.mode} ${shown(asked)}\`.`,
    'Each guess, and each thing not drafted, is a comment above the key it concerns: read them, then',
    '`audience-gateway check` this file before serving it.'
  ].join('\n')
}

/** The package's published schema: beside src/ in the repository, beside dist/ once built. */
function schemaFile (): string {
  const [source, built] = ['../../schema/gateway.schema.json', '../../../schema/gateway.schema.json'].map((path) => fileURLToPath(new URL(path, import.meta.url)))
  /* c8 ignore next -- run from src/ (tsx) or from dist/: each run takes one; test/src/init/command.test.ts reads the header of either */
  return existsSync(source) ? source : built
}

function summaryOf (draft: Draft, asked: InitAsked): string {
  const { declarations, notes } = draft
  const counts = [
    plural(Object.keys(declarations.records).length, 'record'),
    plural(Object.keys(declarations.sources).length, 'source'),
    plural(declarations.mounts.length, 'mount'),
    plural(notes.length, 'note')
  ].join(', ')
  const variables = [...new Set([...JSON.stringify(declarations).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1]))]
  const file = asked.out === '-' ? 'FILE' : asked.out
  const environment = MODES[asked.mode].environment?.(asked.input, asked.values) ?? ''
  return [
    `Drafted ${asked.out === '-' ? 'on stdout' : asked.out} from ${shown(asked)}: ${counts} (each note a # comment above the key it concerns).`,
    `Next: read the notes${asked.out === '-' ? ', save the draft as a .yaml file' : ''}${variables.length === 0 ? '' : `, set ${variables.join(', ')}`}, then`,
    `  ${environment}audience-gateway check ${file}`,
    `  ${environment}audience-gateway serve ${file}`,
    ''
  ].join('\n')
}

/** The input as the file and the terminal may show it. */
function shown (asked: InitAsked): string {
  return MODES[asked.mode].shown(asked.input)
}

/** A URL as it may be shown: its password, if it has one, as `***`; anything else as it is. */
export function shownUrl (input: string): string {
  return withoutPassword(input, input)
}

/** `text` with the password of the URL `input` (if it is one, and has one) written `***`: a message may quote the URL. */
function withoutPassword (text: string, input: string): string {
  const password = URL.canParse(input) ? new URL(input).password : ''
  return password === '' ? text : text.replaceAll(password, '***').replaceAll(decodeURIComponent(password), '***')
}

/** A PostgreSQL URL reading `schema`: the gateway reads the tables of its URL's `schema` parameter (a SQLite file has none). */
function withSchema (url: string, schema: string): string {
  if (!URL.canParse(url)) return url
  const parsed = new URL(url)
  parsed.searchParams.set('schema', schema)
  return parsed.toString()
}

/** A value as a shell reads it back unchanged: in single quotes where it holds more than a path's characters. */
function quoted (value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`
}
