// What a `postgres://` DATABASE_URL says: where to connect, and which schema the catalogue lives
// in. Pure, so the configuration can refuse a bad URL at start, before any connection is tried.

export interface PostgresSettings {
  /** The URL pg connects with, without the parameters read here (pg would pass them to the server). */
  readonly connectionString: string
  /** Startup options (`-c name=value ...`): the URL's own, then the search_path of `schema`. */
  readonly options: string | undefined
  /** The schema the catalogue is created in (if missing) and read from; undefined: the server's default. */
  readonly schema: string | undefined
}

/** Unquoted, as the server folds it: lower case, at most 63 bytes, no quoting needed anywhere. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** `-c search_path=a,b` or `--search_path=a,b` in startup options: the first schema searched. */
const SEARCH_PATH_OPTION = /(?:^|\s)(?:-c\s*|--)search_path=([^\s,]+)/

export function isPostgresUrl (url: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(url)
}

/**
 * Reads `?schema=name` (a shorthand for `options=-c search_path=name`) or the first schema of a
 * search_path in `?options=`; throws a RangeError saying what is wrong with a bad URL or name.
 */
export function postgresSettings (url: string): PostgresSettings {
  if (!URL.canParse(url)) throw new RangeError('it is not a URL such as postgres://user@host:5432/database.')
  const parsed = new URL(url)
  const named = parsed.searchParams.get('schema') ?? undefined
  const given = parsed.searchParams.get('options') ?? undefined
  parsed.searchParams.delete('schema')
  parsed.searchParams.delete('options')
  if (named !== undefined && !SCHEMA_NAME.test(named)) {
    throw new RangeError(`schema must be a lower-case name of letters, digits and underscores (at most 63); got ${JSON.stringify(named)}.`)
  }
  // A search_path the URL's own options set is honoured too; a schema is created only if it is a plain name.
  const searched = given === undefined ? undefined : SEARCH_PATH_OPTION.exec(given)?.[1]
  const schema = named ?? (searched !== undefined && SCHEMA_NAME.test(searched) ? searched : undefined)
  const options = [given, named === undefined ? undefined : `-c search_path=${named}`].filter((option) => option !== undefined).join(' ')
  return { connectionString: parsed.toString(), options: options === '' ? undefined : options, schema }
}
