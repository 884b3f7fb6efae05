// The process's configuration, read from the environment once and validated, so a bad value
// stops the server at start with one line naming the variable.
import { isTimeZone } from './time.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export interface Config {
  readonly port: number
  readonly host: string
  readonly databaseUrl: string
  readonly timeZone: string
  /** Empty when API_KEYS is unset or empty: the server then generates one and logs it once. */
  readonly apiKeys: readonly string[]
  readonly logLevel: typeof LOG_LEVELS[number]
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Reads and validates the configuration; throws a ConfigError naming the first bad variable. */
export function loadConfig (env: Readonly<Record<string, string | undefined>>): Config {
  return {
    port: readPort(env.PORT),
    host: nonEmpty('HOST', env.HOST ?? '127.0.0.1'),
    databaseUrl: nonEmpty('DATABASE_URL', env.DATABASE_URL ?? 'data/catalogue.sqlite'),
    timeZone: readTimeZone(env.TIME_ZONE),
    apiKeys: readKeys(env.API_KEYS),
    logLevel: readLogLevel(env.LOG_LEVEL)
  }
}

function readPort (value = '3000'): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number from 0 to 65535; got ${JSON.stringify(value)}.`)
  return port
}

function readTimeZone (value = 'UTC'): string {
  if (!isTimeZone(value)) throw new ConfigError(`TIME_ZONE must be an IANA time zone such as "UTC" or "Europe/Paris"; got ${JSON.stringify(value)}.`)
  return value
}

function readKeys (value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return []
  const keys = value.split(',').map((key) => key.trim())
  if (keys.some((key) => key.length < 16)) throw new ConfigError('API_KEYS must be a comma-separated list of keys of at least 16 characters each.')
  return keys
}

function readLogLevel (value = 'info'): Config['logLevel'] {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(value)}.`)
  return value as Config['logLevel']
}

function nonEmpty (name: string, value: string): string {
  if (value.trim() === '') throw new ConfigError(`${name} must not be empty.`)
  return value
}
