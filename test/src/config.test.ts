import t from 'tap'
import { ConfigError, loadConfig } from '../../src/config.js'

t.test('defaults', async (t) => {
  t.strictSame(loadConfig({}), {
    port: 3000,
    host: '127.0.0.1',
    databaseUrl: 'data/catalogue.sqlite',
    timeZone: 'UTC',
    apiKeys: [],
    logLevel: 'info'
  })
})

t.test('every variable read', async (t) => {
  t.strictSame(loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    DATABASE_URL: '/tmp/x.sqlite',
    TIME_ZONE: 'Europe/Paris',
    API_KEYS: 'first-key-0123456789, second-key-0123456789',
    LOG_LEVEL: 'warn'
  }), {
    port: 8080,
    host: '0.0.0.0',
    databaseUrl: '/tmp/x.sqlite',
    timeZone: 'Europe/Paris',
    apiKeys: ['first-key-0123456789', 'second-key-0123456789'],
    logLevel: 'warn'
  })
})

t.test('an empty API_KEYS is unset', async (t) => {
  t.strictSame(loadConfig({ API_KEYS: ' ' }).apiKeys, [])
})

t.test('a bad value is refused with one line naming the variable', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^PORT must be a port number from 0 to 65535; got "abc"\.$/],
    [{ PORT: '70000' }, /^PORT /],
    [{ PORT: '-1' }, /^PORT /],
    [{ TIME_ZONE: 'Mars/Olympus' }, /^TIME_ZONE must be an IANA time zone .*"Mars\/Olympus"/],
    [{ API_KEYS: 'short' }, /^API_KEYS must be .* at least 16 characters/],
    [{ API_KEYS: 'a-long-enough-key-123,' }, /^API_KEYS /],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud"\.$/],
    [{ HOST: ' ' }, /^HOST must not be empty\.$/],
    [{ DATABASE_URL: '' }, /^DATABASE_URL must not be empty\.$/]
  ]
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), ConfigError, JSON.stringify(env))
    try { loadConfig(env) } catch (error) { t.match((error as Error).message, message) }
  }
})
