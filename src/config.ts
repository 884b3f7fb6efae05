// The process's configuration, read from the environment once and validated, so a bad value
// stops the server at start with one line naming the variable.
import { SCOPE_PATTERN } from './permissions.js'
import { isPostgresUrl, postgresSettings } from './store/postgres-url.js'
import { isTimeZone } from './time.js'
import { HEAP_GROWING_DEFAULT_PERCENT } from './heap.js'
import { DEFAULT_STREAMS_PER_CLIENT } from './store/per-client.js'
import { ASYMMETRIC_ALGORITHMS, type IdentitySettings, type TrustedIssuer } from './identity/tokens.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/**
 * A bearer key: alone, it may do everything; with scopes, only what they allow; with claims, the
 * identity a mount's row rule reads (`{ org_id: 'acme' }`), as a token's claims are.
 */
export type ApiKey = string | {
  readonly key: string
  /** Absent: every scope. */
  readonly scopes?: readonly string[]
  readonly claims?: Readonly<Record<string, string | number | boolean>>
}

export interface Config {
  readonly port: number
  readonly host: string
  readonly databaseUrl: string
  readonly timeZone: string
  /** Empty when API_KEYS is unset or empty: the server then generates one and logs it once. */
  readonly apiKeys: readonly ApiKey[]
  /** The identity providers whose bearer tokens are accepted beside the keys; absent: keys only. */
  readonly identity?: IdentitySettings
  readonly logLevel: typeof LOG_LEVELS[number]
  /** Browser origins allowed to call the API (CORS). Empty: CORS is off. */
  readonly corsOrigins: readonly string[]
  /** Requests one key (or one address, on open routes) may make per window; 0 turns the limit off. */
  readonly rateLimitMax: number
  /** The rate limit's window, in seconds. */
  readonly rateLimitWindow: number
  /** The Redis replicas share rate limits and totals through; absent: both stay in process. */
  readonly redisUrl?: string
  /** After SIGTERM: seconds the replica goes on accepting and serving (readiness 503) before it closes its listener. */
  readonly shutdownDrainSeconds: number
  /** After the drain: seconds requests in flight have to finish before they are cut and the process exits 1. */
  readonly shutdownGraceSeconds: number
  /** Seconds a streamed list may wait on a client that does not read before it is cut. */
  readonly streamStallSeconds: number
  /** The same, while another request waits for a reader: a stalled client then keeps others waiting. */
  readonly streamStallContendedSeconds: number
  /** Whole lists one client (its key, else its address) may stream at once; 0: no bound. */
  readonly streamsPerClient: number
  /** Mebibytes of lists' answers kept while their data is unchanged; 0 keeps none. */
  readonly responseCacheMegabytes: number
  /** How far V8's old generation may grow past its live size before a full collection, in percent; 0: V8's own rule. */
  readonly heapGrowingPercent: number
  /** The demo upstream's origin (`UPSTREAM_URL`): when set, the products are served from it. */
  readonly upstreamUrl?: string
  /** The gateway's own key to the upstream (`UPSTREAM_TOKEN`), sent as a bearer token; never the caller's. */
  readonly upstreamToken?: string
  /** The declaration file to serve (`GATEWAY_CONFIG`) instead of the demo. */
  readonly declarationFile?: string
}

/** A balancer's usual health-check period covered, then a long list's time to finish. */
export const SHUTDOWN_DEFAULTS = { drainSeconds: 5, graceSeconds: 10 } as const

/** A client that has not read for this long has stopped: its list is cut and its reader freed. */
export const STREAM_STALL_DEFAULT_SECONDS = 10

/**
 * While a request waits for a reader, a client that has not read for this long is cut. Looked at
 * every second: a client stalled that long already is cut within a second of the other's asking,
 * well within the 3 s it waits for a reader.
 */
export const STREAM_STALL_CONTENDED_DEFAULT_SECONDS = 2

/** The bytes in a mebibyte, RESPONSE_CACHE_MB's unit. */
export const MEBIBYTE = 1024 * 1024

/** Mebibytes of answers kept when RESPONSE_CACHE_MB is unset, and the most it may say (64 GiB). */
export const RESPONSE_CACHE_DEFAULT_MB = 32
export const RESPONSE_CACHE_MAX_MB = 65_536

/** Seconds a token's `exp` and `nbf` may be off by when OAUTH_CLOCK_TOLERANCE_SECONDS is unset, and the most it may say. */
export const CLOCK_TOLERANCE_DEFAULT_SECONDS = 30
export const CLOCK_TOLERANCE_MAX_SECONDS = 300

/** Per key (or address) and window, when RATE_LIMIT_MAX and RATE_LIMIT_WINDOW are unset. */
export const RATE_LIMIT_DEFAULTS = { max: 1000, windowSeconds: 60 } as const

export class ConfigError extends Error {
  override name = 'ConfigError'

  /** What a start (or a command) says of it: one line naming the variable. */
  get report (): string {
    return `Invalid configuration: ${this.message}\n`
  }
}

/** Reads and validates the configuration; throws a ConfigError naming the first bad variable. */
export function loadConfig (env: Readonly<Record<string, string | undefined>>): Config {
  return {
    port: readPort(env.PORT),
    host: nonEmpty('HOST', env.HOST ?? '127.0.0.1'),
    databaseUrl: readDatabaseUrl(env.DATABASE_URL ?? 'data/catalogue.sqlite'),
    timeZone: readTimeZone(env.TIME_ZONE),
    apiKeys: readKeys(env.API_KEYS),
    ...readIdentity(env.OAUTH_ISSUERS, env.OAUTH_AUDIENCE, env.OAUTH_CLOCK_TOLERANCE_SECONDS),
    logLevel: readLogLevel(env.LOG_LEVEL),
    corsOrigins: readOrigins(env.CORS_ORIGINS),
    rateLimitMax: readWhole('RATE_LIMIT_MAX', env.RATE_LIMIT_MAX ?? String(RATE_LIMIT_DEFAULTS.max), 0, 'a whole number of requests (0 turns rate limiting off)'),
    rateLimitWindow: readWhole('RATE_LIMIT_WINDOW', env.RATE_LIMIT_WINDOW ?? String(RATE_LIMIT_DEFAULTS.windowSeconds), 1, 'a whole number of seconds from 1'),
    ...readRedisUrl(env.REDIS_URL),
    shutdownDrainSeconds: readWhole('SHUTDOWN_DRAIN_SECONDS', env.SHUTDOWN_DRAIN_SECONDS ?? String(SHUTDOWN_DEFAULTS.drainSeconds), 0, 'a whole number of seconds (0: close at once)'),
    shutdownGraceSeconds: readWhole('SHUTDOWN_GRACE_SECONDS', env.SHUTDOWN_GRACE_SECONDS ?? String(SHUTDOWN_DEFAULTS.graceSeconds), 1, 'a whole number of seconds from 1'),
    streamStallSeconds: readWhole('STREAM_STALL_SECONDS', env.STREAM_STALL_SECONDS ?? String(STREAM_STALL_DEFAULT_SECONDS), 1, 'a whole number of seconds from 1'),
    streamStallContendedSeconds: readWhole('STREAM_STALL_CONTENDED_SECONDS', env.STREAM_STALL_CONTENDED_SECONDS ?? String(STREAM_STALL_CONTENDED_DEFAULT_SECONDS), 1, 'a whole number of seconds from 1'),
    streamsPerClient: readWhole('STREAMS_PER_CLIENT', env.STREAMS_PER_CLIENT ?? String(DEFAULT_STREAMS_PER_CLIENT), 0, 'a whole number of lists (0: no bound)'),
    heapGrowingPercent: readWhole('HEAP_GROWING_PERCENT', env.HEAP_GROWING_PERCENT ?? String(HEAP_GROWING_DEFAULT_PERCENT), 0, 'a whole number of percent up to 1000 (0: V8\'s own rule)', 1000),
    responseCacheMegabytes: readWhole('RESPONSE_CACHE_MB', env.RESPONSE_CACHE_MB ?? String(RESPONSE_CACHE_DEFAULT_MB), 0, `a whole number of mebibytes up to ${RESPONSE_CACHE_MAX_MB} (0 keeps no answers)`, RESPONSE_CACHE_MAX_MB),
    ...readUpstream(env.UPSTREAM_URL, env.UPSTREAM_TOKEN),
    ...(env.GATEWAY_CONFIG === undefined || env.GATEWAY_CONFIG.trim() === '' ? {} : { declarationFile: env.GATEWAY_CONFIG })
  }
}

function readPort (value = '3000'): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number from 0 to 65535; got ${JSON.stringify(value)}.`)
  return port
}

/** A SQLite path as it is; a PostgreSQL URL checked now, so a bad one is not found at the first connection. */
function readDatabaseUrl (value: string): string {
  nonEmpty('DATABASE_URL', value)
  if (!isPostgresUrl(value)) return value
  try {
    postgresSettings(value)
  } catch (error) {
    throw new ConfigError(`DATABASE_URL is not a usable PostgreSQL URL: ${(error as Error).message}`)
  }
  return value
}

function readRedisUrl (value: string | undefined): Pick<Config, 'redisUrl'> {
  if (value === undefined || value.trim() === '') return {}
  if (!/^rediss?:\/\//.test(value) || !URL.canParse(value)) throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL such as "redis://127.0.0.1:6379".')
  return { redisUrl: value }
}

function readUpstream (url: string | undefined, token: string | undefined): Pick<Config, 'upstreamUrl' | 'upstreamToken'> {
  const hasToken = token !== undefined && token.trim() !== ''
  if (url === undefined || url.trim() === '') {
    if (hasToken) throw new ConfigError('UPSTREAM_TOKEN is set without UPSTREAM_URL: set the upstream\'s origin too.')
    return {}
  }
  if (!isOrigin(url)) throw new ConfigError(`UPSTREAM_URL must be an origin such as "http://127.0.0.1:4010" (scheme, host and port, no path); got ${JSON.stringify(url)}.`)
  return { upstreamUrl: url, ...(hasToken ? { upstreamToken: token } : {}) }
}

function readTimeZone (value = 'UTC'): string {
  if (!isTimeZone(value)) throw new ConfigError(`TIME_ZONE must be an IANA time zone such as "UTC" or "Europe/Paris"; got ${JSON.stringify(value)}.`)
  return value
}

/**
 * `key,key:scope+scope`: a key alone may do everything, a key followed by `:` and scopes joined
 * by `+` only what they allow. Or a JSON array of `{ "key", "scopes"?, "claims"? }`, which can also
 * give a key claims. A refusal names the key by its position, never by its text.
 */
function readKeys (value: string | undefined): ApiKey[] {
  if (value === undefined || value.trim() === '') return []
  const seen: string[] = []
  const checked = (key: string, index: number): string => {
    if (key.length < 16 || !/^\S+$/.test(key)) throw new ConfigError('API_KEYS must be a comma-separated list of keys of at least 16 characters each, without whitespace (or a JSON array of them).')
    if (seen.includes(key)) throw new ConfigError(`API_KEYS: key ${index + 1} repeats key ${seen.indexOf(key) + 1}: list each key once, with all its scopes.`)
    seen.push(key)
    return key
  }
  // JSON when it opens as JSON does: an object (a key's entry without its array) is refused as one, not read as keys.
  return /^[[{]/.test(value.trim()) ? keysOfJson(value, checked) : value.split(',').map((entry, index) => keyOfText(entry.trim(), index, checked))
}

const SCOPE_WORDS = 'each scope letters, digits and _ . : / - only'

function keyOfText (entry: string, index: number, checked: (key: string, index: number) => string): ApiKey {
  const [key, ...rest] = entry.split(':')
  checked(key, index)
  if (rest.length === 0) return key
  const scopes = rest.join(':').split('+')
  if (scopes.some((scope) => !SCOPE_PATTERN.test(scope))) {
    throw new ConfigError(`API_KEYS: key ${index + 1} lists a malformed scope: write "<key>:<scope>+<scope>", ${SCOPE_WORDS}, or the key alone for every scope.`)
  }
  return { key, scopes }
}

function keysOfJson (value: string, checked: (key: string, index: number) => string): ApiKey[] {
  let entries: unknown
  try {
    entries = JSON.parse(value)
  } catch {
    throw new ConfigError('API_KEYS is not valid JSON: write keys separated by commas, or a JSON array of { "key": ..., "scopes": [...], "claims": {...} }.')
  }
  if (!Array.isArray(entries)) throw new ConfigError('API_KEYS must be a JSON array of { "key": ..., "scopes": [...], "claims": {...} }.')
  return entries.map((entry, index) => {
    const where = `API_KEYS: key ${index + 1}`
    const { key, scopes, claims, ...rest } = (typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? entry : { key: undefined }) as Record<string, unknown>
    if (typeof key !== 'string' || Object.keys(rest).length > 0) throw new ConfigError(`${where} must be an object with "key" and optionally "scopes" and "claims", nothing else.`)
    checked(key, index)
    if (scopes !== undefined && (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string' || !SCOPE_PATTERN.test(scope)))) {
      throw new ConfigError(`${where} lists a malformed scope: write "scopes" as an array of them, ${SCOPE_WORDS}, or leave it out for every scope.`)
    }
    if (claims !== undefined && !isClaims(claims)) {
      throw new ConfigError(`${where}: "claims" must be an object whose values are each text, a number or true or false, such as { "org_id": "acme" }.`)
    }
    return { key, ...(scopes === undefined ? {} : { scopes: scopes as string[] }), ...(claims === undefined ? {} : { claims }) }
  })
}

function isClaims (value: unknown): value is Record<string, string | number | boolean> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return Object.entries(value).every(([name, claim]) => name !== '' && (typeof claim === 'string' || typeof claim === 'boolean' || (typeof claim === 'number' && Number.isFinite(claim))))
}

/**
 * `OAUTH_ISSUERS` (issuer URLs, comma-separated, or a JSON array of `{ issuer, jwksUri?, algorithms? }`),
 * the audience tokens must name (`OAUTH_AUDIENCE`, this gateway's resource URL) and the clock tolerance.
 */
function readIdentity (issuers: string | undefined, audience: string | undefined, tolerance: string | undefined): Pick<Config, 'identity'> {
  const configured = issuers === undefined || issuers.trim() === '' ? [] : readIssuers(issuers.trim())
  const hasAudience = audience !== undefined && audience.trim() !== ''
  if (configured.length === 0) {
    if (hasAudience) throw new ConfigError('OAUTH_AUDIENCE is set without OAUTH_ISSUERS: name the identity providers whose tokens are accepted too.')
    return {}
  }
  if (!hasAudience || !isWebUrl(audience)) throw new ConfigError(`OAUTH_AUDIENCE must be this gateway's resource URL, such as "https://gateway.example.com", which tokens name as their audience; got ${JSON.stringify(audience ?? '')}.`)
  const clockToleranceSeconds = readWhole('OAUTH_CLOCK_TOLERANCE_SECONDS', tolerance ?? String(CLOCK_TOLERANCE_DEFAULT_SECONDS), 0, `a whole number of seconds up to ${CLOCK_TOLERANCE_MAX_SECONDS}`, CLOCK_TOLERANCE_MAX_SECONDS)
  return { identity: { issuers: configured, audience, clockToleranceSeconds } }
}

function readIssuers (value: string): TrustedIssuer[] {
  const entries: unknown[] = value.startsWith('[') ? parsedIssuers(value) : value.split(',').map((issuer) => ({ issuer: issuer.trim() }))
  return entries.map((entry, index) => {
    const { issuer, jwksUri, algorithms = ASYMMETRIC_ALGORITHMS, ...rest } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>
    const where = `OAUTH_ISSUERS: issuer ${index + 1}`
    if (Object.keys(rest).length > 0 || typeof issuer !== 'string') throw new ConfigError(`${where} must be an object with "issuer" and optionally "jwksUri" and "algorithms", nothing else.`)
    if (!isTrustedUrl(issuer)) throw new ConfigError(`${where} must be an https URL (http only on the loopback); got ${JSON.stringify(issuer)}.`)
    if (jwksUri !== undefined && (typeof jwksUri !== 'string' || !isTrustedUrl(jwksUri))) throw new ConfigError(`${where}: "jwksUri" must be an https URL (http only on the loopback); got ${JSON.stringify(jwksUri)}.`)
    if (!Array.isArray(algorithms) || algorithms.length === 0 || algorithms.some((name) => !(ASYMMETRIC_ALGORITHMS as readonly unknown[]).includes(name))) {
      throw new ConfigError(`${where}: "algorithms" must list some of ${ASYMMETRIC_ALGORITHMS.join(', ')} (asymmetric ones only).`)
    }
    return { issuer, ...(jwksUri === undefined ? {} : { jwksUri }), algorithms: algorithms as string[] }
  })
}

function parsedIssuers (value: string): unknown[] {
  try {
    return JSON.parse(value) as unknown[]
  } catch {
    throw new ConfigError('OAUTH_ISSUERS is not valid JSON: write issuer URLs separated by commas, or a JSON array of { "issuer": ..., "jwksUri": ..., "algorithms": [...] }.')
  }
}

/** https, or http on the loopback only (an identity provider run beside the gateway, in development or tests). */
function isTrustedUrl (text: string): boolean {
  if (!isWebUrl(text)) return false
  const url = new URL(text)
  return url.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
}

function isWebUrl (text: string): boolean {
  return URL.canParse(text) && ['https:', 'http:'].includes(new URL(text).protocol)
}

function readLogLevel (value = 'info'): Config['logLevel'] {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(value)}.`)
  return value as Config['logLevel']
}

/** Origins as a browser sends them (scheme, host, port; nothing after), so a match is exact. */
function readOrigins (value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return []
  const origins = value.split(',').map((origin) => origin.trim())
  const bad = origins.find((origin) => !isOrigin(origin))
  if (bad !== undefined) throw new ConfigError(`CORS_ORIGINS must be a comma-separated list of origins such as "https://app.example.com" (scheme, host and port, no path); got ${JSON.stringify(bad)}.`)
  return origins
}

function isOrigin (text: string): boolean {
  if (!URL.canParse(text)) return false
  const url = new URL(text)
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === text
}

function readWhole (name: string, value: string, least: number, what: string, most = Number.MAX_SAFE_INTEGER): number {
  const number = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < least || number > most) throw new ConfigError(`${name} must be ${what}; got ${JSON.stringify(value)}.`)
  return number
}

function nonEmpty (name: string, value: string): string {
  if (value.trim() === '') throw new ConfigError(`${name} must not be empty.`)
  return value
}
